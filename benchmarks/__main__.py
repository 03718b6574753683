"""``python -m benchmarks [--quick]``: print the benchmark table."""

import sys

from benchmarks.run import main

sys.exit(main())
