"""The services the team-scale benchmark starts for itself: a throw-away PostgreSQL cluster and a PgBouncer in
front of it, both on 127.0.0.1 in a temp dir, both stopped at the end.

PostgreSQL and PgBouncer refuse to run as root: as root their binaries run as the ``postgres`` user (which
Debian's postgresql package makes); otherwise as the current user.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_service_user(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


def pg_bindir() -> Path | None:
    found = shutil.which("pg_config")
    if found:
        out = subprocess.run([found, "--bindir"], capture_output=True, text=True, check=False).stdout.strip()
        if out and (Path(out) / "initdb").exists():
            return Path(out)
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), reverse=True)
    return candidates[0].parent if candidates else None


class Postgres:
    """initdb in a temp dir, ``start``/``stop``/``restart`` with pg_ctl, ``close`` removes it all."""

    def __init__(self, max_connections: int, fsync: bool) -> None:
        bindir = pg_bindir()
        if bindir is None:
            raise SystemExit("PostgreSQL is not installed (apt-get install postgresql)")
        self.bindir = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="tether-team-pg-"))
        self.port = free_port()
        self.max_connections = max_connections
        self.fsync = fsync
        if os.geteuid() == 0:
            shutil.chown(self.dir, user="postgres")
            self.dir.chmod(0o755)

    def _run(self, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            _as_service_user(list(args)), capture_output=True, text=True, timeout=timeout, check=False
        )

    @property
    def version(self) -> str:
        out = subprocess.run([str(self.bindir / "postgres"), "--version"], capture_output=True, text=True, check=False)
        return out.stdout.strip()

    def init(self) -> None:
        r = self._run(
            str(self.bindir / "initdb"), "-D", str(self.dir / "data"), "-A", "trust", "-U", "tether", "-E", "UTF8"
        )
        if r.returncode != 0:
            raise RuntimeError(f"initdb failed: {r.stderr.strip() or r.stdout.strip()}")

    def start(self) -> None:
        opts = (
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c max_connections={self.max_connections}"
            f" -c fsync={'on' if self.fsync else 'off'}"
        )
        r = self._run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.dir / "data"),
            "-l",
            str(self.dir / "log"),
            "-w",
            "-o",
            opts,
            "start",
        )
        if r.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {r.stderr.strip()} {self.log_tail()}")

    def stop(self, mode: str = "fast") -> None:
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.dir / "data"), "-m", mode, "-w", "stop")

    def log_tail(self, chars: int = 2000) -> str:
        log = self.dir / "log"
        return log.read_text(errors="replace")[-chars:] if log.exists() else ""

    def close(self) -> None:
        if (self.dir / "data" / "postmaster.pid").exists():
            self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)

    @property
    def dsn(self) -> str:
        return f"postgresql://tether@127.0.0.1:{self.port}/postgres"

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://tether@127.0.0.1:{self.port}/postgres"


def pgbouncer_binary() -> str | None:
    return shutil.which("pgbouncer") or ("/usr/sbin/pgbouncer" if Path("/usr/sbin/pgbouncer").exists() else None)


class PgBouncer:
    """PgBouncer in transaction pooling mode in front of ``pg``, as a child process of the benchmark."""

    def __init__(self, pg: Postgres, pool_size: int) -> None:
        binary = pgbouncer_binary()
        if binary is None:
            raise RuntimeError("pgbouncer is not installed")
        self.binary = binary
        self.pool_size = pool_size
        self.dir = Path(tempfile.mkdtemp(prefix="tether-team-pgbouncer-"))
        self.port = free_port()
        (self.dir / "userlist.txt").write_text('"tether" ""\n')
        (self.dir / "pgbouncer.ini").write_text(
            "[databases]\n"
            f"postgres = host=127.0.0.1 port={pg.port} dbname=postgres\n"
            "[pgbouncer]\n"
            f"listen_addr = 127.0.0.1\nlisten_port = {self.port}\nunix_socket_dir = {self.dir}\n"
            f"auth_type = trust\nauth_file = {self.dir / 'userlist.txt'}\n"
            f"pool_mode = transaction\ndefault_pool_size = {pool_size}\nmax_client_conn = 2000\n"
            f"logfile = {self.dir / 'pgbouncer.log'}\npidfile = {self.dir / 'pgbouncer.pid'}\n"
            "ignore_startup_parameters = extra_float_digits,options\n"
        )
        if os.geteuid() == 0:
            shutil.chown(self.dir, user="postgres")
            for f in self.dir.iterdir():
                shutil.chown(f, user="postgres")
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def version(self) -> str:
        out = subprocess.run([self.binary, "--version"], capture_output=True, text=True, check=False)
        return (out.stdout or out.stderr).strip().splitlines()[0]

    def start(self) -> None:
        self.process = subprocess.Popen(
            _as_service_user([self.binary, str(self.dir / "pgbouncer.ini")]),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"pgbouncer did not start: {self.log_tail()}")

    def pid(self) -> int | None:
        pidfile = self.dir / "pgbouncer.pid"
        return int(pidfile.read_text().strip()) if pidfile.exists() else None

    def log_tail(self, chars: int = 2000) -> str:
        log = self.dir / "pgbouncer.log"
        return log.read_text(errors="replace")[-chars:] if log.exists() else ""

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # runuser passes the signal on to pgbouncer
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://tether@127.0.0.1:{self.port}/postgres"
