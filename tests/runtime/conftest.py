from tests.export.conftest import exported, trained_folder  # noqa: F401  (shared trained and exported models)
