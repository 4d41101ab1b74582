"""``tether-lsp select``'s ``name:arg,arg`` steps: typed as the selector declares its arguments."""

from __future__ import annotations

from typing import Any

import pytest

from tether_lsp.handlers.selectors.cli import parse_step
from tether_lsp.handlers.selectors.engine import validate
from tether_lsp.server.errors import InvalidParams


@pytest.mark.parametrize(
    ("step", "expected"),
    [
        ("selectFunctions", ("selectFunctions", [])),
        ("selectRange:10,1,10,61", ("selectRange", [9, 0, 9, 60])),  # 1-based in the CLI, as it prints
        ("selectRange:10, 1, 10 ,61", ("selectRange", [9, 0, 9, 60])),  # spaces around numbers
        ("selectAt:3,+13", ("selectAt", [2, 12])),
        ("selectNth:-2", ("selectNth", [-2])),
        ("selectNth:x", ("selectNth", ["x"])),  # left to the validation, which names args[0]
        ("selectNth:1_000", ("selectNth", ["1_000"])),  # Python's int() would take it; a user means no number
        ("selectNth:٣", ("selectNth", ["٣"])),  # nor a non-ASCII digit
        ("filterText:^a,b$", ("filterText", ["^a,b$"])),  # a string last argument takes the rest
        ("filterText:1", ("filterText", ["1"])),  # a str argument stays text, even when it reads as a number
        ("selectEnclosing:function", ("selectEnclosing", ["function"])),
        ("selectFunctions:1,2", ("selectFunctions", ["1", "2"])),  # no arguments declared: counted, not typed
        ("selectFoo:1,2", ("selectFoo", ["1", "2"])),
        ("selectRange:", ("selectRange", [])),
    ],
)
def test_steps_are_typed_by_the_selectors_arguments(step: str, expected: tuple[str, list[Any]]) -> None:
    assert parse_step(step) == expected


def test_a_typed_range_is_what_the_server_takes() -> None:
    name, args = parse_step("selectRange:9,1,9,61")
    assert validate(name, args).args == (8, 0, 8, 60)


@pytest.mark.parametrize(
    ("step", "field", "message"),
    [
        (
            "selectRange:9,0,9,60",
            "args[1]",
            "startCharacter counts from 1 here, as lines and columns are printed; got 0",
        ),
        ("selectAt:0,5", "args[0]", "line counts from 1 here, as lines and columns are printed; got 0"),
    ],
)
def test_a_zero_line_or_column_is_refused_as_typed(step: str, field: str, message: str) -> None:
    """Not as "got -1", the number after the CLI's shift to 0-based: the user typed 0."""
    with pytest.raises(InvalidParams) as info:
        parse_step(step)
    assert info.value.message == f"{field}: {message}"
    assert info.value.data["kind"] == "invalidArgs"
    assert info.value.data["selector"] == step.partition(":")[0]


def test_a_wrong_count_is_left_to_the_validation_which_says_how_to_type_arguments() -> None:
    name, args = parse_step("selectRange:9 0 9 60")
    assert args == ["9 0 9 60"]
    with pytest.raises(InvalidParams) as info:
        validate(name, args)
    assert info.value.data["field"] == "args"
    assert "after the name and a colon, separated by commas" in info.value.message
    assert "selectRange:startLine,startCharacter,endLine,endCharacter" in info.value.message
