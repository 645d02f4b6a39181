"""CTest's entry to the Python tests: runs pytest on the given files with this interpreter.

Exit 5 (pytest collected nothing, or pytest is not installed for this interpreter) is reported to
CTest as "skipped" (SKIP_RETURN_CODE 5 in python/CMakeLists.txt), never as a failure.
"""
import sys

try:
    import pytest
except ImportError:
    print(f"pytest is not installed for {sys.executable} (Debian: apt-get install python3-pytest); "
          "Python tests skipped")
    sys.exit(5)

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-rs"] + sys.argv[1:]))
