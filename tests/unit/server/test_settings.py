"""settings.py: typed sections, nested and dotted keys, one warning per unknown/wrong key, defaults kept."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tether_lsp.server.settings import (
    DatabaseSettings,
    LimitSettings,
    LogSettings,
    Settings,
    SettingsSchema,
    extract_tether,
    fits_json_type,
    setting,
)


@dataclass(frozen=True)
class DemoSettings:
    enabled: bool = True
    threshold: float = setting(0.6, "a ratio", minimum=0, maximum=1)
    limit: int = setting(10, "a count", minimum=1)
    keywords: list[str] | None = None
    mode: str = setting("fast", "a choice", choices=("fast", "slow"))


def parse(*sources: dict[str, Any] | None) -> tuple[Settings, list[str]]:
    """Parse with the core sections and a demo feature's."""
    schema = SettingsSchema()
    schema.register("demoFeature", DemoSettings)
    return schema.parse(*sources)


def test_each_schema_knows_only_its_own_sections() -> None:
    """Sections live on a server's schema, not in a module global: a second server does not see them."""
    settings, _ = parse({"demoFeature": {"limit": 3}})
    other, warnings = SettingsSchema().parse({"demoFeature": {"limit": 3}})
    assert settings.section(DemoSettings).limit == 3
    assert warnings == ["ignoring unknown settings: tether.demoFeature.limit"]
    assert other.named("demoFeature") is None
    with pytest.raises(KeyError, match="DemoSettings is not registered"):
        other.section(DemoSettings)
    assert list(SettingsSchema().sections()) == ["database", "log", "limits"]


def test_a_section_must_be_a_dataclass() -> None:
    with pytest.raises(TypeError, match="not a dataclass"):
        SettingsSchema().register("bad", dict)


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
        ({"demoFeature": {"limit": True}}, "tether.demoFeature.limit: expected an integer, got true"),
        ({"demoFeature": {"threshold": "high"}}, "tether.demoFeature.threshold: expected a number"),
        ({"demoFeature": {"enabled": 1}}, "tether.demoFeature.enabled: expected a boolean"),
        ({"demoFeature": {"keywords": ["a", 2]}}, "tether.demoFeature.keywords: expected a list of a string or null"),
        ({"log": {"level": "loud"}}, "tether.log.level: expected one of debug, info, warning, error"),
        ({"demoFeature": {"mode": "medium"}}, 'tether.demoFeature.mode: expected one of fast, slow, got "medium"'),
        ({"demoFeature": {"threshold": 1.5}}, "tether.demoFeature.threshold: expected at most 1, got 1.5"),
        ({"demoFeature": {"threshold": -0.01}}, "tether.demoFeature.threshold: expected at least 0, got -0.01"),
        ({"demoFeature": {"limit": 0}}, "tether.demoFeature.limit: expected at least 1, got 0"),
        ({"demoFeature": {"threshold": True}}, "tether.demoFeature.threshold: expected a number, got true"),
        ({"database": {"url": 5}}, "tether.database.url: expected a string or null, got 5; keeping the default null"),
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


def test_range_ends_are_accepted() -> None:
    settings, warnings = parse({"demoFeature": {"threshold": 1, "limit": 1}})
    assert warnings == []
    assert settings.section(DemoSettings).threshold == 1.0
    assert settings.section(DemoSettings).limit == 1


def test_a_setting_needs_a_description() -> None:
    with pytest.raises(ValueError, match="description"):
        setting(1)


@pytest.mark.parametrize(
    ("value", "hint", "accepted"),
    [
        ({"a": 1}, dict[str, int], True),  # a parametrised dict
        ([], dict, False),
        (object(), Any, True),
        (None, int | None, True),
        (1, "not a type", False),  # an unknown hint accepts nothing
        (2, float, True),
        (True, float, False),
        (1.0, int, False),
    ],
)
def test_json_type_checks(value: object, hint: object, accepted: bool) -> None:
    assert fits_json_type(value, hint) is accepted


def test_an_unknown_key_does_not_hide_the_known_ones_after_it() -> None:
    settings, warnings = parse({"bogus": 1, "log": {"level": "debug"}})
    assert settings.section(LogSettings).level == "debug"
    assert warnings == ["ignoring unknown settings: tether.bogus"]


def test_a_wrong_value_does_not_hide_the_settings_after_it() -> None:
    settings, warnings = parse({"log": {"level": "loud"}, "limits": {"workers": 2}})
    assert settings.section(LimitSettings).workers == 2
    assert len(warnings) == 1


def test_a_section_registered_late_keeps_the_settings_already_applied() -> None:
    from tether_lsp.server.app import TetherServer

    server = TetherServer("t", "0")
    server.apply_settings({"log": {"level": "debug"}})
    server.register_settings("demoFeature", DemoSettings)
    assert server.settings.section(LogSettings).level == "debug"
    assert server.settings.section(DemoSettings) == DemoSettings()
