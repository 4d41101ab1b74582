"""Prompt builders: joined lines, format templates, Jinja, class attributes and functions."""

import textwrap
from string import Template as DollarTemplate

import jinja2

REVIEW_TEMPLATE = "\n".join(
    [
        "You are reviewing a pull request.",
        "Point out bugs first, then style.",
        "Diff:",
        "{diff}",
    ]
)

RELEASE_NOTES = textwrap.dedent(
    """\
    Write release notes for version {version} from the commit messages below.
    Group them as Features, Fixes and Other, one line per change.

    {commits}
    """
)

BUG_REPORT = "Write a bug report titled {title!r} for component {component}.".format

email_template = jinja2.Template("Dear {{ name }},\n\nThank you for your order {{ order_id }}. We will ship it soon.")
env = jinja2.Environment()
digest = env.from_string("Summarize these {{ items | length }} news items for {{ reader }}:\n{{ items | join('\n') }}")
legacy = DollarTemplate("Rewrite $sentence in the voice of $author.")


class SupportPrompts:
    greeting = "Greet the customer by name ({name}) and ask how you can help."
    escalation = (
        "The customer is upset. Apologise once, summarise the problem in one sentence, "
        "and offer to escalate to a human."
    )
    max_turns = 6
    model_name = "gpt-4o"


class Reviewer:
    def system_prompt(self) -> str:
        return "You are a strict code reviewer. Never approve code without tests."

    def user_prompt(self, diff: str, language: str = "python") -> str:
        if not diff:
            return "There is no diff to review; say so in one sentence."
        return f"Review this {language} diff:\n{diff}"

    def prompt_path(self) -> str:
        return "prompts/reviewer.txt"


def make_prompt(topic, audience):
    intro = "Explain " + topic
    return intro + " to " + audience + " in three short paragraphs."
