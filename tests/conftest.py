"""Test set-up shared by every tier: hypothesis profiles, an isolated data dir, a real PostgreSQL server."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.helpers import free_port

settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture(scope="session", autouse=True)
def _isolated_home() -> Iterator[Path]:
    """Servers and storage under test never touch the user's data dir or git config."""
    home = Path(tempfile.mkdtemp(prefix="tether-test-home-"))
    os.environ["TETHER_TEST_HOME"] = str(home)
    os.environ["XDG_DATA_HOME"] = str(home / "data")
    os.environ["GIT_CONFIG_GLOBAL"] = "/dev/null"
    os.environ["GIT_CONFIG_NOSYSTEM"] = "1"
    yield home
    shutil.rmtree(home, ignore_errors=True)


def _pg_bindir() -> Path | None:
    try:
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=True).stdout.strip()
        if (Path(out) / "initdb").exists():
            return Path(out)
    except (OSError, subprocess.CalledProcessError):
        pass
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), reverse=True)
    return candidates[0].parent if candidates else None


class PostgresServer:
    """A throw-away PostgreSQL cluster on 127.0.0.1 in a temp dir (run as `postgres` when we are root)."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="tether-pg-"))
        self.port = free_port()
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            shutil.chown(self.dir, user="postgres")
            self.dir.chmod(0o755)

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        cmd = [str(a) for a in args]
        if self.as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)

    def start(self) -> None:
        data = self.dir / "data"
        r = self._run(str(self.bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "tether", "-E", "UTF8")
        if r.returncode != 0:
            raise RuntimeError(f"initdb failed: {r.stderr.strip() or r.stdout.strip()}")
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        r = self._run(
            str(self.bindir / "pg_ctl"), "-D", str(data), "-l", str(self.dir / "log"), "-w", "-o", opts, "start"
        )
        if r.returncode != 0:
            log = (self.dir / "log").read_text(errors="replace") if (self.dir / "log").exists() else ""
            raise RuntimeError(f"pg_ctl start failed: {r.stderr.strip()} {log[-2000:]}")

    def stop(self) -> None:
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.dir / "data"), "-m", "fast", "-w", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://tether@127.0.0.1:{self.port}/postgres"


def _postgres_required() -> bool:
    return bool(os.environ.get("TETHER_REQUIRE_POSTGRES") or os.environ.get("CI"))


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A real PostgreSQL for the session; fails loudly when required (make test, CI) and unavailable."""
    bindir = _pg_bindir()
    problem = None
    server = None
    if bindir is None:
        problem = "PostgreSQL is not installed (run `make test`, which installs Debian's postgresql)"
    else:
        server = PostgresServer(bindir)
        try:
            server.start()
        except Exception as exc:
            problem = f"PostgreSQL could not be started: {exc}"
            server.stop()
            server = None
    if server is None:
        message = f"\n\n!!! {problem} — the PostgreSQL tests CANNOT run !!!\n"
        if _postgres_required():
            pytest.fail(message)
        warnings.warn(message, stacklevel=1)
        pytest.skip(message)
    try:
        yield server
    finally:
        server.stop()


def _fresh_database(postgres_server: PostgresServer) -> Iterator[str]:
    import psycopg

    name = f"t_{os.getpid()}_{free_port()}"
    admin = f"postgresql://tether@127.0.0.1:{postgres_server.port}/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield f"postgresql+psycopg://tether@127.0.0.1:{postgres_server.port}/{name}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """A fresh, empty database on the session's server for each test."""
    yield from _fresh_database(postgres_server)


@pytest.fixture
def other_postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """A second fresh database on the same server (a settings change moves to it)."""
    yield from _fresh_database(postgres_server)
