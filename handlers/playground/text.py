"""Decoding prompt literals to the text identity is computed on (docs/playground.md, "Which strings are prompts").

Python string literals (prefixes, quotes, escapes), ``textwrap.dedent``/``inspect.cleandoc``, YAML scalars
(plain, quoted, block with chomping); then whitespace normalisation and the variables a playground asks for.
"""

from __future__ import annotations

import functools
import inspect
import re
import textwrap

_SPACES = re.compile(r"\s+")
_ESCAPE = re.compile(r"\\(\n|[\\'\"abfnrtv0]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}]*\})")
_SIMPLE = {"\n": "", "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f", "n": "\n"}
_SIMPLE |= {"r": "\r", "t": "\t", "v": "\v", "0": "\0"}
FIELDS = re.compile(r"\{\{\s*\$?([A-Za-z_]\w*)[^{}]*\}\}|(?<!\{)\{([A-Za-z_]\w*)[^{}]*\}(?!\})|\$\{?([A-Za-z_]\w*)\}?")
_WORD = re.compile(r"[^\W\d_]{2,}")
_PUNCTUATION = ".,;:!?'\"«»()[]-—…*"
#: Template expressions and tags, whatever is inside (``{{ .Values.name }}``, ``{% if x %}``).
_EXPRESSIONS = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.DOTALL)
_CODE_START = re.compile(r"\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|WITH|DROP|ALTER)\b|\s*<", re.IGNORECASE)
#: A brace Python's formatting writes as it is (``{{`` / ``}}`` of an f-string or a ``.format`` template), kept
#: apart from a variable's braces inside the server, so no rule takes ``{{order}}`` there for a variable; it is
#: a plain brace again wherever the text is shown or sent (:func:`shown`).
LITERAL_OPEN, LITERAL_CLOSE = "\ue000", "\ue001"
_SHOWN = str.maketrans({LITERAL_OPEN: "{", LITERAL_CLOSE: "}"})


@functools.lru_cache(maxsize=8192)
def normalise(text: str) -> str:
    """Whitespace runs collapsed, ends stripped: what identity compares."""
    return _SPACES.sub(" ", text).strip()


def _unescape(match: re.Match[str]) -> str:
    code = match.group(1)
    if code in _SIMPLE:
        return _SIMPLE[code]
    if code[0] in "xuU":
        return chr(int(code[1:], 16))
    import unicodedata

    try:
        return unicodedata.lookup(code[2:-1])
    except KeyError:
        return match.group(0)


def python_literal(token: str) -> tuple[str, bool] | None:
    """The decoded body of one Python string literal and whether it is an f-string; None for bytes."""
    k = 0
    while k < len(token) and token[k] not in "'\"":
        k += 1
    prefix = token[:k].lower()
    if "b" in prefix:
        return None
    quote = token[k : k + 3] if token[k : k + 3] in ('"""', "'''") else token[k]
    body = token[k + len(quote) : len(token) - len(quote)] if token.endswith(quote) else token[k + len(quote) :]
    if "r" not in prefix:
        body = _ESCAPE.sub(_unescape, body)
    return body, "f" in prefix


def format_braces(text: str) -> str:
    """A format string (an f-string's body, a ``.format`` template) as Python renders its text: ``{{`` and ``}}``
    are literal braces (:data:`LITERAL_OPEN`, :data:`LITERAL_CLOSE`); its fields ``{x…}`` stay as written."""
    if "{{" not in text and "}}" not in text:
        return text
    out: list[str] = []
    k, n = 0, len(text)
    while k < n:
        if text.startswith("{{", k):
            out.append(LITERAL_OPEN)
            k += 2
        elif text[k] == "{":  # a field, up to its matching brace (``{x:>{width}}``)
            depth, j = 0, k
            while j < n:
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                if depth == 0:
                    break
                j += 1
            out.append(text[k : j + 1])
            k = j + 1
        elif text.startswith("}}", k):
            out.append(LITERAL_CLOSE)
            k += 2
        else:
            out.append(text[k])
            k += 1
    return "".join(out)


def shown(text: str) -> str:
    """The text as a user reads it and a model gets it: the braces :func:`format_braces` kept apart are braces."""
    return text.translate(_SHOWN) if LITERAL_OPEN in text or LITERAL_CLOSE in text else text


def dedent(text: str) -> str:
    return textwrap.dedent(text)


def cleandoc(text: str) -> str:
    return inspect.cleandoc(text)


def yaml_double_quoted(token: str) -> str:
    body = token[1:-1] if len(token) >= 2 and token.endswith('"') else token[1:]
    return _ESCAPE.sub(_unescape, body)


def yaml_single_quoted(token: str) -> str:
    body = token[1:-1] if len(token) >= 2 and token.endswith("'") else token[1:]
    return body.replace("''", "'")


def yaml_block(token: str) -> str:
    """A ``|`` or ``>`` block scalar (header with chomping/indent indicators, then indented lines)."""
    header, _, rest = token.partition("\n")
    indicator = header.strip()
    lines = rest.split("\n")
    body = textwrap.dedent("\n".join(lines))
    if indicator.startswith(">"):
        paragraphs = re.split(r"\n\s*\n", body)
        body = "\n".join(" ".join(p.split("\n")) for p in paragraphs)
    if "-" in indicator:
        return body.rstrip("\n")
    if "+" in indicator:
        return body
    return body.rstrip("\n") + "\n"


def words(text: str) -> int:
    """How many tokens of the text are words (letters, with punctuation around them)."""
    return sum(1 for token in text.split() if _WORD.fullmatch(token.strip(_PUNCTUATION)))


def is_prose(text: str) -> bool:
    """Reads like a sentence: two words or more (one long word in scripts written without spaces). The
    precision guard of the weaker rules: a path, a URL, an identifier or a format code is not a prompt."""
    if words(text) >= 2:
        return True
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= 4 and not any(c.isascii() for c in letters)


def is_text(text: str) -> bool:
    """Prose, or words or markup tags around a variable (``OBSERVATION: {{observation}}``,
    ``<observation>{{observation}}</observation>``): what a config value under a key that only suggests a prompt
    must be. A name, a path, a number, a secret or a lone variable is not."""
    masked = FIELDS.sub("\x00", _EXPRESSIONS.sub("\x00", text))  # ``name={{ item }}``: no word of its own
    if is_prose(masked):
        return True
    tokens = masked.split()
    return bool(variables(text)) and any(_WORD.fullmatch(token.strip(_PUNCTUATION + "<>/")) for token in tokens)


def is_template(text: str) -> bool:
    """Prose of several lines with at least one variable, and not SQL or markup: a constant holding this is a
    prompt template even when its name says nothing (``SUMMARIZE_TICKET = dedent(\"\"\"…{ticket}…\"\"\")``)."""
    lines = [line for line in text.split("\n") if line.strip()]
    return len(lines) >= 2 and words(text) >= 8 and bool(variables(text)) and not _CODE_START.match(text)


def variables(text: str) -> list[str]:
    """``{x}`` (f-strings, format), ``{{x}}`` / ``{{ x | f }}`` / ``{{$x}}`` (Jinja, Mustache, Semantic Kernel),
    ``$x`` / ``${x}``: first-seen order, no repeats."""
    out: list[str] = []
    for match in FIELDS.finditer(text):
        name = next(g for g in match.groups() if g)
        if name not in out:
            out.append(name)
    return out


@functools.lru_cache(maxsize=8192)
def preview(text: str, width: int = 60) -> str:
    one = normalise(shown(text))
    return one if len(one) <= width else one[: width - 1] + "…"
