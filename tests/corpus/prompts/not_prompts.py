"""Strings that are not prompts: the detector must not offer any of these (the precision guard)."""

import argparse
import logging

log = logging.getLogger(__name__)

DEFAULT_TEMPLATE = "default.html"
TEMPLATE_DIR = "templates/"
PROMPT_TIMEOUT = 30
USER_AGENT = "tether/1.0 (+https://example.invalid)"
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
QUERY = """
SELECT id, title, body
FROM tickets
WHERE status = {status} AND owner = {owner}
ORDER BY created_at DESC
"""
HTML_PAGE = """<html>
<body><h1>{title}</h1><p>{body} and some more words to make it long enough to count</p></body>
</html>"""
USAGE = "usage: tether [-h] [--version]"


def main() -> None:
    """Parse the arguments, then print the prompt template it would use (this docstring is not a prompt)."""
    parser = argparse.ArgumentParser(description="Run the assistant on a ticket.")
    parser.add_argument("--template", help="Path of the prompt template to use instead of the default one.")
    args = parser.parse_args()
    log.info("using template %s", args.template)
    log.warning(prompt="a log call with a prompt keyword is still a log line")
    print(f"Loaded the template from {args.template}, ready to go.")
    raise SystemExit(0)


class PromptCache:
    """Keeps rendered prompts in memory."""

    size = 128
    backend = "memory"

    def prompt_key(self, name: str) -> str:
        return f"prompt:{name}"


def load_prompt(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


ERRORS = {"missing": "The field is missing.", "invalid": "The field is not valid."}
