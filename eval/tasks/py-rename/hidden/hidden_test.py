import subprocess
import sys

import billing

assert not hasattr(billing, "calc"), "calc is gone"
assert billing.compute_total([(2.5, 4), (1.25, 2)]) == 12.5
out = subprocess.run([sys.executable, "main.py"], capture_output=True, text=True, check=True).stdout.strip()
assert out == "12.5", out
