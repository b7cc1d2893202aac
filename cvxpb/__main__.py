"""``python -m cvxpb``: the ``cvxpb`` command."""

import sys

from cvxpb.cli import main

sys.exit(main())
