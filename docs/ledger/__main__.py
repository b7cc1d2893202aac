"""``python -m docs.ledger``: compute every row's numbers and keep them as the reviewed
snapshot (docs/ledger/numbers.json), after reviewing the page they make."""

from docs.ledger import SNAPSHOT, write_snapshot

write_snapshot()
print(f"wrote {SNAPSHOT}")
