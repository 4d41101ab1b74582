"""A retrieval QA chain in LangChain style (the library is not imported by the tests: only parsed)."""

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.prompts import ChatPromptTemplate, PromptTemplate

QA_TEMPLATE = """Use the following pieces of context to answer the question at the end.
If you don't know the answer, just say that you don't know.

{context}

Question: {question}
Helpful answer:"""

qa_prompt = PromptTemplate(template=QA_TEMPLATE, input_variables=["context", "question"])

condense = PromptTemplate.from_template(
    "Given the conversation below, rephrase the follow-up question to be a standalone question.\n"
    "Chat history: {chat_history}\nFollow-up: {question}"
)

chat = ChatPromptTemplate.from_messages(
    [
        ("system", "You are a helpful assistant that answers questions about {product}."),
        ("placeholder", "{history}"),
        ("human", "{question}"),
    ]
)

grader = ChatPromptTemplate.from_template("Grade the answer {answer} against the reference {reference} from 1 to 5.")


def few_shot() -> list:
    return [
        SystemMessage(content="Translate English to French. Answer with the translation only."),
        HumanMessage(content="I love programming."),
        AIMessage("J'adore la programmation."),
    ]


def run(llm, question: str) -> str:
    logger.info("running the QA chain for %s", question)
    return (chat | llm).invoke({"question": question, "product": "Tether", "history": []})
