"""Prompt detection, table-driven: each way a prompt is recognised, and what must not be a prompt."""

from __future__ import annotations

import pytest

from tether_lsp.handlers.playground.engine import detect
from tether_lsp.handlers.playground.text import shown
from tether_lsp.server.syntax import parse_text


def found(language: str, source: str) -> list[tuple[str, str]]:
    data = source.encode("utf-8")
    return [(p.anchor, p.content) for p in detect(language, parse_text(language, data), data)]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('SYSTEM_PROMPT = "You are terse."\n', [("SYSTEM_PROMPT", "You are terse.")]),
        ('system_prompt: str = "Typed and annotated."\n', [("system_prompt", "Typed and annotated.")]),
        (  # P1: attribute in a method, an f-string with a variable
            'class Bot:\n    def run(self, name):\n        self.user_prompt = f"Hello {name}, how are you?"\n',
            [("Bot.run().user_prompt", "Hello {name}, how are you?")],
        ),
        ('PROMPT = ("Part one, " "part two.")\n', [("PROMPT", "Part one, part two.")]),  # parens + implicit concat
        ('PROMPT = "Dear " + name + ", welcome."\n', [("PROMPT", "Dear {name}, welcome.")]),  # a + chain
        (
            'import textwrap\nPROMPT = textwrap.dedent("""\n    Line one.\n      Indented.\n""")\n',
            [("PROMPT", "\nLine one.\n  Indented.\n")],
        ),
        ('from inspect import cleandoc\nPROMPT = cleandoc("""\n    A.\n    B.\n""")\n', [("PROMPT", "A.\nB.")]),
        ('PROMPT = r"raw \\n stays"\n', [("PROMPT", "raw \\n stays")]),
        ('PROMPT = "escape\\tdecoded \\u00e9"\n', [("PROMPT", "escape\tdecoded é")]),
        (  # P2: a comment marks the name; blank lines allowed; the name stays a prompt in its scope
            '# @prompt\n\nintro = "Hello " "world"\nintro = "Later, again"\nother = "not one"\n',
            [("intro", "Hello world"), ("intro", "Later, again")],
        ),
        ('greeting = "Trailing mark works"  # @prompt\n', [("greeting", "Trailing mark works")]),
        (  # P3: keyword arguments
            'client.messages.create(system="Be terse.", max_tokens=5)\n',
            [("client.messages.create(system=)", "Be terse.")],
        ),
        (  # P4: role/content dicts; role values are not prompts
            'messages = [{"role": "system", "content": "Sys text"}, {"role": "user", "content": f"Q: {q}"}]\n',
            [("messages[0].content", "Sys text"), ("messages[1].content", "Q: {q}")],
        ),
        (  # P5: dict keys from the keyword list or matching /prompt/i; dict keys themselves are not prompts
            'cfg = {"system_prompt": "Answer well.", "myPrompt": "Another one", "name": "not a prompt"}\n',
            [("cfg.system_prompt", "Answer well."), ("cfg.myPrompt", "Another one")],
        ),
    ],
)
def test_python_patterns(source: str, expected: list[tuple[str, str]]) -> None:
    assert found("python", source) == expected


def roles(language: str, source: str) -> list[tuple[str, str | None, tuple[str, ...]]]:
    data = source.encode("utf-8")
    return [(p.anchor, p.role, p.variables) for p in detect(language, parse_text(language, data), data)]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (  # a bound `.format` kept to be called later is the template; an import alias of Template is Template
            'X_PROMPT = "Hello {name}, welcome.".format\nfrom string import Template as T\nt = T("Rewrite $s nicely.")\n',
            [("X_PROMPT", "Hello {name}, welcome."), ("T()", "Rewrite $s nicely.")],
        ),
        (  # P6: a keyword as the name or an end part of it, prose only
            'SUMMARY_TEMPLATE = "Summarize {doc} in one line."\nagent_instructions = "Be polite and short."\n',
            [("SUMMARY_TEMPLATE", "Summarize {doc} in one line."), ("agent_instructions", "Be polite and short.")],
        ),
        (  # values built by .format(...) and "\n".join([...]); a non-string part reads as a variable
            'X_PROMPT = "Hello {name}, welcome.".format(name=n)\nY_PROMPT = "\\n".join(["First line.", tail])\n',
            [("X_PROMPT", "Hello {name}, welcome."), ("Y_PROMPT", "First line.\n{tail}")],
        ),
        (  # P7: attributes of a class whose name matches /prompt/i, prose only
            'class Prompts:\n    apology = "Write a short apology."\n    n = "x"\n    model = "gpt-4o"\n',
            [("Prompts.apology", "Write a short apology.")],
        ),
        (  # P8: each return of a function named like a prompt
            'def ask_prompt(q):\n    if q:\n        return f"Answer {q} now."\n    return "Ask something, please."\n',
            [("ask_prompt().return[0]", "Answer {q} now."), ("ask_prompt().return[1]", "Ask something, please.")],
        ),
        (  # P9: LangChain constructors and Jinja templates
            'c = ChatPromptTemplate.from_messages([("system", "Be kind to people."), ("human", "{q}")])\n'
            'p = PromptTemplate.from_template("Tell a joke about {topic}.")\n'
            'm = HumanMessage(content="What is the time?")\n'
            't = jinja2.Template("Hello {{ user }}, welcome back.")\n',
            [
                ("ChatPromptTemplate.from_messages[0]", "Be kind to people."),
                ("PromptTemplate.from_template()", "Tell a joke about {topic}."),
                ("HumanMessage()", "What is the time?"),
                ("jinja2.Template()", "Hello {{ user }}, welcome back."),
            ],
        ),
        (  # P10: input= with a model=; embeddings' input (not a string) and input= without model= are not
            'client.responses.create(model="m", input="Say hello to the team.")\nf(input="Say hello to the team.")\n',
            [("client.responses.create(input=)", "Say hello to the team.")],
        ),
        (  # P11: an upper-case constant holding a multi-line template with a variable, even with a plain name
            'TICKET = """Summarize the ticket below in three bullet points.\nTicket: {ticket}\n"""\n',
            [("TICKET", "Summarize the ticket below in three bullet points.\nTicket: {ticket}\n")],
        ),
    ],
)
def test_python_idioms(source: str, expected: list[tuple[str, str]]) -> None:
    assert found("python", source) == expected


def test_roles_chats_and_parameters() -> None:
    source = (
        'SYSTEM = "You are a concise assistant."\n'
        "def build(q):\n"
        '    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": f"Q: {q} {extra}"}]\n'
        "def reply_prompt(self, name, tone: str = 'warm'):\n"
        '    return f"Write to {name} in a {tone} tone about {topic}."\n'
        'create(system="Short answers only.")\n'
    )
    data = source.encode()
    prompts = detect("python", parse_text("python", data), data)
    by_anchor = {p.anchor: p for p in prompts}
    message = by_anchor["build()[1].content"]
    assert message.role == "user"
    assert message.chat == (("system", "You are a concise assistant."), ("user", "Q: {q} {extra}"))
    reply = by_anchor["reply_prompt().return"]
    assert reply.variables == ("name", "tone", "topic")  # parameters first (not self), then the text's own
    assert by_anchor["create(system=)"].role == "system"


@pytest.mark.parametrize(
    "source",
    [
        'log.info(prompt="a log line with a prompt keyword")\n',
        'logger.warning("Could not load the prompt template from disk")\n',
        'TEMPLATE_DIR = "templates/"\n',  # a keyword name, but a path
        'def prompt_path():\n    return "prompts/x.txt"\n',  # a prompt function, but not prose
        'class PromptCache:\n    backend = "memory"\n',
        'QUERY = """\nSELECT a, b, c FROM t\nWHERE x = {x} AND y = {y} ORDER BY a, b, c\n"""\n',
        'HELP = """Usage: run the tool with a file.\nIt prints the result and nothing more at all."""\n',  # no var
        'client.embeddings.create(model="e", input=texts)\n',
        'c = ChatPromptTemplate.from_messages([("placeholder", "{history}")])\n',
    ],
)
def test_precision_guard(source: str) -> None:
    assert found("python", source) == []


@pytest.mark.parametrize(
    "source",
    [
        '"""Module docstring about the prompt."""\n',
        'def f():\n    """A docstring, prompt-like."""\n',
        'PROMPT = b"bytes are never prompts"\n',
        'PROMPT = "ab"\n',  # under 3 non-space characters
        "PROMPT = 42\n",
        'x = {"prompt": 5}\n',
        'messages = [{"role": "user"}]\n',
        'name = "not marked"\n',
    ],
)
def test_python_non_prompts(source: str) -> None:
    assert found("python", source) == []


YAML = """summarize:
  system: |
    You are {{ role }}.
    Be brief.
  temperature: 0.2
  user_prompt: >-
    Folded
    text here
messages:
  - role: system
    content: "Quoted \\"text\\" with escape"
  - role: user
    content: 'It''s single quoted'
# @prompt

note: Marked by a comment
ratio: 3
enabled_prompt: true
base: &b
  template: Shared template text
copy: *b
"""


def test_yaml_patterns() -> None:
    assert found("yaml", YAML) == [
        ("summarize.system", "You are {{ role }}.\nBe brief.\n"),
        ("summarize.user_prompt", "Folded text here"),
        ("messages[0].content", 'Quoted "text" with escape'),
        ("messages[1].content", "It's single quoted"),
        ("note", "Marked by a comment"),
        ("base.template", "Shared template text"),  # the alias `copy: *b` is not a second prompt
    ]


def test_yaml_multi_document_streams_prefix_the_document() -> None:
    source = "system: First document prompt\n---\nsystem: Second document prompt\n"
    assert found("yaml", source) == [("0:system", "First document prompt"), ("1:system", "Second document prompt")]


def test_yaml_flow_mappings() -> None:
    assert found("yaml", "x: {user: flow value here, n: 1}\n") == [("x.user", "flow value here")]


def test_yaml_prompt_files() -> None:
    github = "messages:\n  - role: system\n    content: You are terse.\n  - role: user\n    content: Sum {{input}} up\n"
    assert roles("yaml", github) == [
        ("messages[0].content", "system", ()),
        ("messages[1].content", "user", ("input",)),
    ]
    data = github.encode()
    (first, _) = detect("yaml", parse_text("yaml", data), data)
    assert first.chat == (("system", "You are terse."), ("user", "Sum {{input}} up"))
    promptfoo = (
        'prompts:\n  - "Write a tweet about {{topic}}"\n  - file://p.txt\n  - id: x\n    raw: "Be formal, {{who}}"\n'
    )
    assert roles("yaml", promptfoo) == [("prompts[0]", None, ("topic",)), ("prompts[2].raw", None, ("who",))]
    flow = 'prompts: ["Flow item prompt here", "x"]\n'
    assert found("yaml", flow) == [("prompts[0]", "Flow item prompt here")]
    kernel = "template: |\n  Summarize {{$input}} for {{ reader | upper }}.\ntemplate_format: semantic-kernel\n"
    assert roles("yaml", kernel) == [("template", None, ("input", "reader"))]


def test_variables() -> None:
    data = b'P_PROMPT = f"Hi {name}, {{literal}} ${other} $third {name}"\n'
    (prompt,) = detect("python", parse_text("python", data), data)
    assert prompt.variables == ("name", "other", "third")  # `{{literal}}` is text: the f-string writes `{literal}`
    assert shown(prompt.content) == "Hi {name}, {literal} ${other} $third {name}"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("PROMPT = " + " + ".join(['"Say hi. "'] * 20_000) + "\n", "Say hi. " * 20_000),
        ("PROMPT = " + " + ".join(["name"] + ['"x"'] * 20_000) + "\n", "{name}" + "x" * 20_000),
        ("SYSTEM_PROMPT = " + "(" * 20_000 + '"Be terse."' + ")" * 20_000 + "\n", "Be terse."),
        ("PROMPT = " + "dedent(" * 5_000 + '"  Be terse."' + ")" * 5_000 + "\n", "Be terse."),
        ("PROMPT = " + '"Answer: {}".format(' * 5_000 + '"Be terse."' + ")" * 5_000 + "\n", "Answer: {}"),
        ("PROMPT = " + '" ".join([' * 5_000 + '"Be terse."' + "])" * 5_000 + "\n", "Be terse."),
    ],
    ids=["plus-chain", "plus-chain-with-a-variable", "parentheses", "dedent", "format", "join"],
)
def test_python_values_nested_deeper_than_the_recursion_limit(source: str, expected: str) -> None:
    assert found("python", source) == [("PROMPT" if source.startswith("PROMPT") else "SYSTEM_PROMPT", expected)]
