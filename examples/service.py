"""Order service: a small asyncio HTTP-ish service module used by Tether's demo and tests.

Non-ASCII on purpose: café, naïve, 東京, and an emoji 🚀 appear in strings and comments.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
from collections.abc import Awaitable, Callable
from decimal import Decimal

log = logging.getLogger("orders")

TAX_RATES = {"FR": Decimal("0.20"), "JP": Decimal("0.10"), "DE": Decimal("0.19")}


AsyncFn = Callable[..., Awaitable[object]]


def retry(times: int = 3, delay: float = 0.1) -> Callable[[AsyncFn], AsyncFn]:
    """Retry an async call a few times before giving up."""

    def decorate(fn: AsyncFn) -> AsyncFn:
        @functools.wraps(fn)
        async def wrapper(*args: object, **kwargs: object) -> object:
            for attempt in range(1, times + 1):
                try:
                    return await fn(*args, **kwargs)
                except ConnectionError:
                    if attempt == times:
                        raise
                    await asyncio.sleep(delay * attempt)
            return None

        return wrapper

    return decorate


@dataclasses.dataclass(frozen=True)
class LineItem:
    sku: str
    label: str  # e.g. "Café crème" or "抹茶ラテ"
    quantity: int
    unit_price: Decimal

    @property
    def total(self) -> Decimal:
        return self.unit_price * self.quantity


@dataclasses.dataclass
class Order:
    id: str
    country: str
    items: list[LineItem] = dataclasses.field(default_factory=list)

    def subtotal(self) -> Decimal:
        return sum((item.total for item in self.items), Decimal(0))

    def tax(self) -> Decimal:
        rate = TAX_RATES.get(self.country, Decimal(0))
        return (self.subtotal() * rate).quantize(Decimal("0.01"))

    def summary(self) -> str:
        labels = ", ".join(item.label for item in self.items if item.quantity > 0)
        return f"Order {self.id} 🚀 ({self.country}): {labels} — total {self.subtotal() + self.tax()}"


class OrderRepository:
    """In-memory store standing in for a database."""

    def __init__(self) -> None:
        self._orders: dict[str, Order] = {}

    def add(self, order: Order) -> None:
        if order.id in self._orders:
            raise KeyError(f"duplicate order {order.id}")
        self._orders[order.id] = order

    def find(self, order_id: str) -> Order | None:
        return self._orders.get(order_id)

    def by_country(self, country: str) -> list[Order]:
        return [o for o in self._orders.values() if o.country == country]


@retry(times=2)
async def fetch_exchange_rate(currency: str) -> Decimal:
    await asyncio.sleep(0)
    match currency:
        case "EUR":
            return Decimal(1)
        case "JPY":
            return Decimal("0.0062")
        case _:
            raise ConnectionError(f"no rate for {currency}")


async def handle_request(repo: OrderRepository, path: str) -> tuple[int, str]:
    """Route a request path to a response (status, body)."""
    parts = [p for p in path.split("/") if p]
    if len(parts) == 2 and parts[0] == "orders":
        order = repo.find(parts[1])
        if order is None:
            return 404, "not found"
        return 200, order.summary()
    # naïve fallback for everything else
    return 400, "bad request"
