"""randqa.engine.scheduler: the --tls-* files are checked before any
connection, and a missing one is named (ssl's own error names none)."""

from __future__ import annotations

import pytest

from randqa.engine.scheduler import TlsFiles, parse_scheduler_address
from randqa.errors import UsageError

pytest.importorskip("distributed")

ADDRESS = parse_scheduler_address("tls://127.0.0.1:8786")


@pytest.mark.parametrize("missing", ["ca_file", "cert", "key"])
def test_a_missing_tls_file_is_named_with_its_option(tmp_path, missing):
    present = tmp_path / "present.pem"
    present.write_text("")
    files = {"ca_file": str(present), "cert": str(present), "key": str(present)}
    files[missing] = str(tmp_path / "absent.pem")
    with pytest.raises(UsageError) as refused:
        TlsFiles(**files).security(ADDRESS)
    flag = {"ca_file": "--tls-ca-file", "cert": "--tls-cert", "key": "--tls-key"}[missing]
    assert str(refused.value) == f"{flag} {tmp_path / 'absent.pem'}: cannot read it (No such file or directory)"


def test_a_missing_file_from_dasks_configuration_is_named_with_its_setting(tmp_path):
    import dask

    present = tmp_path / "present.pem"
    present.write_text("")
    with dask.config.set({"distributed.comm.tls.ca-file": str(tmp_path / "gone.pem")}):
        with pytest.raises(UsageError, match=r"^Dask's distributed.comm.tls.ca-file .*gone.pem: cannot read it"):
            TlsFiles(cert=str(present), key=str(present)).security(ADDRESS)
