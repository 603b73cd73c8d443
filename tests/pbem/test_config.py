"""Configuration from the environment: safe defaults, production refuses a missing secret."""
from __future__ import annotations

import pytest

from pbem.config import DEV_SECRET_KEY, MAKE_SECRET_KEY, Config

GOOD_KEY = "Vq3xN8rLw0Zk5TfYb2HmJc7PdGs9EaUo4RiXn1Ql6WvK"  # as secrets.token_urlsafe makes them


def test_defaults_suit_make_run():
    cfg = Config.from_env({})
    assert cfg.KORSAR_ENV == "development" and cfg.DEV_INBOX and cfg.SECRET_KEY == DEV_SECRET_KEY
    assert cfg.DATABASE_URL.startswith("sqlite:///") and cfg.BASE_URL == "http://127.0.0.1:5000"


@pytest.mark.parametrize("environ", [
    {"KORSAR_ENV": "production"},
    {"KORSAR_ENV": "production", "SECRET_KEY": DEV_SECRET_KEY},
    {"BASE_URL": "https://korsar.example.com"},  # public and silent about its environment
])
def test_production_refuses_to_start_without_a_secret_key(environ):
    with pytest.raises(RuntimeError, match="SECRET_KEY"):
        Config.from_env(environ)


def test_a_public_base_url_means_production_without_the_dev_inbox():
    cfg = Config.from_env({"BASE_URL": "https://korsar.example.com/", "SECRET_KEY": GOOD_KEY})
    assert cfg.is_production and not cfg.DEV_INBOX and cfg.BASE_URL == "https://korsar.example.com"


@pytest.mark.parametrize("base_url", ["http://127.0.0.1.nip.io:5000", "http://127.0.0.2:5000",
                                      "http://localhost.example.com", "http://[::2]:5000", "http://0.0.0.0:5000"])
def test_a_base_url_only_like_a_local_one_means_production(base_url):
    with pytest.raises(RuntimeError, match="SECRET_KEY must be set in production"):
        Config.from_env({"BASE_URL": base_url})
    assert Config.from_env({"BASE_URL": base_url, "SECRET_KEY": GOOD_KEY}).is_production


@pytest.mark.parametrize("base_url", ["http://127.0.0.1:5000", "http://localhost:8000/", "http://LOCALHOST",
                                      "http://[::1]:5000"])
def test_a_local_base_url_is_development(base_url):
    cfg = Config.from_env({"BASE_URL": base_url})
    assert cfg.KORSAR_ENV == "development" and cfg.SECRET_KEY == DEV_SECRET_KEY


def test_values_are_parsed_by_type():
    cfg = Config.from_env({"SMTP_PORT": "2525", "WORKER_POLL_SECONDS": "0.25",
                           "SECRET_KEY_FALLBACKS": "old1, old2", "KORSAR_ENV": "testing"})
    assert (cfg.SMTP_PORT, cfg.WORKER_POLL_SECONDS, cfg.SECRET_KEY_FALLBACKS) == (2525, 0.25, ["old1", "old2"])


def test_an_unknown_smtp_tls_mode_is_refused():
    with pytest.raises(ValueError, match="SMTP_TLS"):
        Config.from_env({"SMTP_TLS": "maybe"})


@pytest.mark.parametrize("name", ["prod", "Production", "staging"])
def test_an_unknown_environment_name_is_refused_not_taken_for_development(name):
    with pytest.raises(ValueError, match="KORSAR_ENV must be one of"):
        Config.from_env({"KORSAR_ENV": name, "BASE_URL": "https://korsar.example.com"})


def test_the_number_of_trusted_proxies_comes_from_the_environment():
    assert Config.from_env({"FORWARDED_HOPS": "1"}).FORWARDED_HOPS == 1
    assert Config.from_env({}).FORWARDED_HOPS == 0


@pytest.mark.parametrize("key", [
    " ", "x", "changeme", "s3cret", " " * 40, "x" * 64, "ab" * 32, "0123456789" * 4,
    "changeme-changeme-changeme-changeme", "my-production-secret-key-for-korsar-2026",
    "correct-password-horse-battery-staple-42", DEV_SECRET_KEY + "-but-longer-now-1234567",
    "kU4pXw9RzT2mQe7LcV0nYh3JdA6sGb8" + "Example",
])
def test_production_refuses_a_weak_secret_key_and_says_how_to_make_one(key):
    with pytest.raises(RuntimeError, match="SECRET_KEY") as refused:
        Config.from_env({"KORSAR_ENV": "production", "SECRET_KEY": key})
    assert MAKE_SECRET_KEY in str(refused.value)


@pytest.mark.parametrize("key", [
    GOOD_KEY,
    "b355f895fbbcfb2144436057eed4c4a1c0e9d2f7a83b6e51d4c09f8a7e2b6d31",  # secrets.token_hex()
    "1IJhx9MtW6teEAL6nDMOFsyzL+gADPzq1nXGrp35WZfL",  # base64 of 33 random bytes
])
def test_production_accepts_a_long_random_secret_key(key):
    assert Config.from_env({"KORSAR_ENV": "production", "SECRET_KEY": key}).SECRET_KEY == key


@pytest.mark.parametrize("fallbacks", ["changeme", f"{GOOD_KEY[::-1]}, x"])
def test_production_refuses_a_weak_fallback_key_too(fallbacks):
    with pytest.raises(RuntimeError, match=r"SECRET_KEY_FALLBACKS\[\d\] is too weak"):
        Config.from_env({"KORSAR_ENV": "production", "SECRET_KEY": GOOD_KEY, "SECRET_KEY_FALLBACKS": fallbacks})


def test_weak_keys_are_fine_outside_production():
    assert Config.from_env({"KORSAR_ENV": "testing", "SECRET_KEY": "x", "SECRET_KEY_FALLBACKS": "y"}).SECRET_KEY == "x"


def test_local_state_goes_to_the_checkouts_var_or_the_current_directorys(tmp_path, monkeypatch):
    from pbem import config

    assert config.var_dir({"KORSAR_VAR_DIR": str(tmp_path)}) == tmp_path
    assert config.var_dir({}) == config.PROJECT_ROOT / "var"  # run from the checkout: as `make run` always did
    monkeypatch.setattr(config, "PROJECT_ROOT", tmp_path / "site-packages")  # installed: no pyproject.toml
    monkeypatch.chdir(tmp_path)
    assert config.var_dir({}) == tmp_path / "var"
    assert config._default_database_url() == f"sqlite:///{tmp_path / 'var' / 'korsar.sqlite3'}"
