import pathlib

from keras_skim.datasets import cache


def test_cache_root_resolution(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_SKIM_CACHE", str(tmp_path / "explicit"))
    assert cache.cache_root() == tmp_path / "explicit"
    assert cache.cache_root(tmp_path / "arg") == tmp_path / "arg"
    monkeypatch.delenv("KERAS_SKIM_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_root() == tmp_path / "xdg" / "keras_skim"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_root() == pathlib.Path(tmp_path / "home" / ".cache" / "keras_skim")


def test_checksum_detects_changes(tmp_path):
    path = cache.store_artefact(tmp_path / "a" / "data.bin", b"hello")
    assert cache.checksum_path(path).read_text().startswith(cache.sha256_file(path))
    assert cache.verify_checksum(path)
    assert cache.read_verified(path) == b"hello"
    path.write_bytes(b"hellO")
    assert not cache.verify_checksum(path)
    assert cache.read_verified(path) is None
    cache.checksum_path(path).unlink()
    assert not cache.verify_checksum(path)


def test_atomic_write_leaves_no_partial_file(tmp_path):
    target = tmp_path / "out.bin"
    try:
        with cache.atomic_output(target) as tmp:
            tmp.write_bytes(b"half")
            raise RuntimeError("interrupted")
    except RuntimeError:
        pass
    assert list(tmp_path.iterdir()) == []
    cache.atomic_write_bytes(target, b"whole")
    assert target.read_bytes() == b"whole"
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]
