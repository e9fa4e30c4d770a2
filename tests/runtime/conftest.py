from tests.export.conftest import exported  # noqa: F401  (shared tiny exported models)
