import logging
import os

from anthropic import Anthropic
from openai import OpenAI

log = logging.getLogger(__name__)
client = OpenAI(api_key=os.environ["OPENAI_API_KEY"])

CLASSIFIER_INSTRUCTIONS = "Classify the ticket as billing, bug or question. Answer with one word."


def classify(ticket: str) -> str:
    log.info("classifying ticket of %d characters", len(ticket))
    answer = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[
            {"role": "system", "content": CLASSIFIER_INSTRUCTIONS},
            {"role": "user", "content": f"Ticket:\n{ticket}"},
        ],
        temperature=0,
    )
    return answer.choices[0].message.content


def respond(question: str) -> str:
    reply = client.responses.create(
        model="gpt-4.1",
        instructions="Talk like a pirate, but stay accurate.",
        input=f"Answer the question briefly: {question}",
    )
    return reply.output_text


def summarize(text: str) -> str:
    anthropic = Anthropic()
    message = anthropic.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=512,
        system="You write summaries for busy engineers. Use plain sentences.",
        messages=[{"role": "user", "content": "Summarize:\n\n" + text}],
    )
    return message.content[0].text


def embed(texts: list[str]) -> list[list[float]]:
    return [d.embedding for d in client.embeddings.create(model="text-embedding-3-small", input=texts).data]
