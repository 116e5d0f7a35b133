"""Where a Dask scheduler is, and how to reach it: ``--scheduler`` (or
$RANDQA_SCHEDULER) checked before any work, its TLS files, and a probe
that refuses in seconds what is no Dask scheduler (a closed port, a silent
listener, another protocol)."""

from __future__ import annotations

import ipaddress
import os
import re
import time
from dataclasses import dataclass
from typing import Any

from randqa.errors import UsageError, one_line

#: environment variable naming a scheduler, as --scheduler does
SCHEDULER_ENV = "RANDQA_SCHEDULER"

#: schemes of a Dask scheduler's address that randqa connects to
SCHEDULER_SCHEMES = ("tcp", "tls")
_ADDRESS = re.compile(r"(?:(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://)?(?P<host>\[[^\]/]*\]|[^:/\[\]@?#]*)"
                      r"(?::(?P<port>[^/]*))?")
_HOST_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
TLS_NEEDS_TLS_SCHEDULER = "--tls-ca-file, --tls-cert and --tls-key are for a tls:// --scheduler"
#: the largest first frame a Dask scheduler sends (its handshake: some hundred bytes)
MAX_HANDSHAKE_BYTES = 1 << 20


@dataclass(frozen=True)
class SchedulerAddress:
    """A Dask scheduler's address, checked: ``tcp://`` or ``tls://``, a host
    name or IP address, a port."""

    scheme: str
    host: str
    port: int

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"


def parse_scheduler_address(text: str, option: str = "--scheduler") -> SchedulerAddress:
    """``text`` as a scheduler address, or one UsageError line naming ``option``
    (the check comes before any work: a typo costs nothing)."""
    def refuse(problem: str) -> UsageError:
        shown = text if text.isprintable() and len(text) <= 200 else repr(text[:200])
        return UsageError(f"{option} {shown}: {problem}; give a Dask scheduler's address, tcp://HOST:PORT or "
                          f"tls://HOST:PORT (such as tcp://10.0.0.5:8786)")

    match = _ADDRESS.fullmatch(text.strip())
    if match is None:
        raise refuse("not an address")
    scheme = (match["scheme"] or "tcp").lower()
    if scheme not in SCHEDULER_SCHEMES:
        raise refuse(f"randqa connects to schedulers over tcp:// or tls://, not {scheme}://")
    host = match["host"]
    if host.startswith("["):
        try:
            host = str(ipaddress.IPv6Address(host[1:-1]))
        except ValueError:
            raise refuse(f"{host} is not an IPv6 address") from None
    elif not host:
        raise refuse("no host")
    elif not (len(host) <= 253 and all(_HOST_LABEL.fullmatch(label) for label in host.rstrip(".").split("."))):
        raise refuse(f"{host!r} is not a host name or IP address")
    port = match["port"]
    if port is None:
        raise refuse("no port (a scheduler listens on 8786 unless told otherwise)")
    if not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
        raise refuse(f"port {port!r} is not a number from 1 to 65535")
    return SchedulerAddress(scheme, host, int(port))


def scheduler_address(option: str | None) -> SchedulerAddress | None:
    """--scheduler (even empty), else RANDQA_SCHEDULER, else None; checked."""
    if option is not None:
        return parse_scheduler_address(option)
    value = os.environ.get(SCHEDULER_ENV)
    return parse_scheduler_address(value, f"${SCHEDULER_ENV}") if value else None


@dataclass(frozen=True)
class TlsFiles:
    """``--tls-ca-file``, ``--tls-cert`` and ``--tls-key``: the certificates a
    ``tls://`` scheduler is reached with; what is not given comes from Dask's
    configuration (``distributed.comm.tls.ca-file``, ``.client.cert``, ``.client.key``)."""

    ca_file: str | None = None
    cert: str | None = None
    key: str | None = None

    def given(self) -> bool:
        return any((self.ca_file, self.cert, self.key))

    def security(self, address: SchedulerAddress) -> Any:
        """Dask's Security for a client of ``address`` (TLS required), its
        files loaded now: a missing or bad file is one UsageError line."""
        try:  # the cluster extra
            from distributed.security import Security
        except ImportError:
            raise UsageError("clusters need the cluster extra: pip install 'randqa[cluster]'") from None

        options = {"tls_ca_file": self.ca_file, "tls_client_cert": self.cert, "tls_client_key": self.key}
        security = Security(require_encryption=True, **{k: v for k, v in options.items() if v})
        if not (security.tls_ca_file and security.tls_client_cert):
            raise UsageError(f"--scheduler {address.url}: Dask's TLS needs the cluster's CA certificate and a client "
                             "certificate: give --tls-ca-file and --tls-cert (and --tls-key unless the key is in "
                             "the certificate's file), or set distributed.comm.tls.ca-file and .client.cert in "
                             "Dask's configuration")
        # which file is missing or unreadable: ssl's own error names none
        for flag, key, setting in (("--tls-ca-file", "tls_ca_file", "ca-file"), ("--tls-cert", "tls_client_cert",
                                   "client.cert"), ("--tls-key", "tls_client_key", "client.key")):
            where = getattr(security, key)
            if where is None or where.lstrip().startswith("-----BEGIN"):  # Dask also takes the PEM text itself
                continue
            try:
                with open(where, "rb"):
                    pass
            except OSError as exc:
                named = flag if options[key] else f"Dask's distributed.comm.tls.{setting}"
                raise UsageError(f"{named} {where}: cannot read it ({exc.strerror or one_line(exc)})") from None
        try:
            security.get_connection_args("client")
        except (OSError, ValueError) as exc:
            raise UsageError(f"--scheduler {address.url}: cannot load the TLS certificates ({one_line(exc)})") from None
        return security


def probe_scheduler(address: SchedulerAddress, timeout: float, ssl_context: Any = None) -> None:
    """Connect to ``address`` and read the first frame length a Dask
    scheduler sends unasked; one UsageError line, within about ``timeout``
    seconds, for anything else: no host, a refused or silent port, a server
    that speaks another protocol (HTTP answers nothing until asked), a
    failed TLS handshake.  Dask itself would wait far longer, or read an
    HTTP reply as a frame of exabytes."""
    import socket
    import ssl

    def refuse(problem: str) -> UsageError:
        return UsageError(f"--scheduler {address.url}: {problem}")

    deadline = time.monotonic() + timeout
    try:
        connection = socket.create_connection((address.host, address.port), timeout=timeout)
    except socket.gaierror as exc:
        raise refuse(f"unknown host ({exc.strerror or exc})") from None
    except TimeoutError:
        raise refuse(f"no answer in {timeout:g} s (no host there, or a firewall)") from None
    except OSError as exc:
        raise refuse(f"cannot connect ({exc.strerror or exc})") from None
    with connection:
        try:
            if ssl_context is not None:
                connection.settimeout(max(0.01, deadline - time.monotonic()))
                connection = ssl_context.wrap_socket(connection, server_hostname=address.host)
            header = b""
            while len(header) < 8:
                connection.settimeout(max(0.01, deadline - time.monotonic()))
                piece = connection.recv(8 - len(header))
                if not piece:
                    raise refuse("the server closed the connection at once: not a Dask scheduler")
                header += piece
        except TimeoutError:
            raise refuse(f"the server accepted the connection but sent nothing in {timeout:g} s: not a Dask "
                         "scheduler (an HTTP server, another service), or one too busy to answer "
                         "(--scheduler-timeout)") from None
        except ssl.SSLError as exc:
            raise refuse(f"the TLS handshake failed ({one_line(exc)})") from None
        except OSError as exc:
            raise refuse(f"cannot connect ({exc.strerror or exc})") from None
    size = int.from_bytes(header, "little")
    if not 0 < size <= MAX_HANDSHAKE_BYTES:
        raise refuse(f"the server's first bytes {header!r} are not Dask's protocol: not a Dask scheduler")
