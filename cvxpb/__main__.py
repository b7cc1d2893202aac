"""``python -m cvxpb``: the ``cvxpb`` command."""

import sys

from cvxpb.app.cli import main

sys.exit(main())
