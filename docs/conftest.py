"""pytest under docs/: only the user guide's pages are tests.

``python -m pytest docs`` would otherwise import conf.py, the build extension and the
gallery's scripts (which run their examples) as doctest modules.
"""

collect_ignore = ["conf.py", "_ext", "examples", "auto_examples", "_build"]
