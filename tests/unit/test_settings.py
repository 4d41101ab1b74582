"""settings.py: typed sections, nested and dotted keys, one warning per unknown/wrong key, defaults kept."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from server import settings as settings_mod
from server.settings import DatabaseSettings, LogSettings, extract_tether, parse, register_section


@dataclass(frozen=True)
class DemoSettings:
    enabled: bool = True
    threshold: float = 0.6
    limit: int = 10
    keywords: list[str] | None = None


@pytest.fixture(autouse=True)
def _demo_section(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings_mod, "_SECTIONS", dict(settings_mod._SECTIONS))
    monkeypatch.setattr(settings_mod, "_CHOICES", dict(settings_mod._CHOICES))
    register_section("demoFeature", DemoSettings)


def test_defaults() -> None:
    settings, warnings = parse()
    assert warnings == []
    assert settings.section(DemoSettings) == DemoSettings()
    assert settings.section(DatabaseSettings).url is None
    assert settings.section(LogSettings).level == "info"


def test_nested_and_dotted_keys() -> None:
    settings, warnings = parse({"demoFeature": {"threshold": 0.9}, "demoFeature.limit": 3, "database.url": "sqlite://"})
    assert warnings == []
    assert settings.section(DemoSettings) == DemoSettings(threshold=0.9, limit=3)
    assert settings.section(DatabaseSettings).url == "sqlite://"


def test_later_sources_override_earlier_ones() -> None:
    settings, _ = parse({"demoFeature": {"limit": 1}}, {"demoFeature": {"limit": 2}})
    assert settings.section(DemoSettings).limit == 2


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"demoFeature": {"limit": 1.5}}, "tether.demoFeature.limit: expected an integer, got 1.5"),
        ({"demoFeature": {"limit": True}}, "tether.demoFeature.limit: expected an integer, got True"),
        ({"demoFeature": {"threshold": "high"}}, "tether.demoFeature.threshold: expected a number"),
        ({"demoFeature": {"enabled": 1}}, "tether.demoFeature.enabled: expected a boolean"),
        ({"demoFeature": {"keywords": ["a", 2]}}, "tether.demoFeature.keywords: expected a list of a string or null"),
        ({"log": {"level": "loud"}}, "tether.log.level: expected one of debug, info, warning, error"),
    ],
)
def test_wrong_types_keep_the_default_with_one_warning(raw: dict[str, object], message: str) -> None:
    settings, warnings = parse(raw)
    assert len(warnings) == 1
    assert message in warnings[0]
    assert "keeping the default" in warnings[0]
    assert settings.section(DemoSettings) == DemoSettings()
    assert settings.section(LogSettings) == LogSettings()


def test_unknown_keys_one_warning_naming_them() -> None:
    settings, warnings = parse({"demoFeature": {"limt": 3, "limit": 4}, "nope": True})
    assert warnings == ["ignoring unknown settings: tether.demoFeature.limt, tether.nope"]
    assert settings.section(DemoSettings).limit == 4


def test_int_accepted_for_float_and_stored_as_float() -> None:
    settings, warnings = parse({"demoFeature": {"threshold": 1}})
    assert warnings == []
    assert settings.section(DemoSettings).threshold == 1.0
    assert isinstance(settings.section(DemoSettings).threshold, float)


def test_extract_tether() -> None:
    assert extract_tether({"tether": {"a": 1}}) == {"a": 1}
    assert extract_tether({"a": 1}) == {"a": 1}
    assert extract_tether({"python": {}}, bare=False) is None
    assert extract_tether(None) is None
    assert extract_tether([1]) is None
