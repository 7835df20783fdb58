"""The harness's own tests (a package, so that pytest puts the checkout on sys.path from any directory)."""
