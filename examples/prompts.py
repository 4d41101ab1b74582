"""Prompts for the support assistant. The playground finds these and keeps their identity across edits."""

from textwrap import dedent

SYSTEM_PROMPT = "You are a concise support assistant for an online café. Answer in the customer's language."

SUMMARIZE_TICKET = dedent(
    """
    Summarize the support ticket below in three bullet points.
    Mention the order id if there is one.

    Ticket:
    {ticket}
    """
)


def translation_prompt(text: str, language: str) -> str:
    return f"Translate the following message into {language}, keeping product names unchanged:\n\n{text}"


class Prompts:
    apology = "Write a short apology for a delayed order. Offer a 10% voucher. Sign as « L'équipe »."
    upsell = "Suggest one pastry that goes well with the drink the customer ordered. Keep it under 20 words."


def build_messages(question: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": f"Question from a customer in 東京: {question}"},
    ]
