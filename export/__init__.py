"""The release pipeline (not part of the installed package): demo models -> export folders ->
the Android app's assets and golden files -> the committed benchmark reports.

    python export/build_release.py assets [--from-exports DIR ...]
    python export/build_release.py benchmarks [--only NAME ...]
"""
