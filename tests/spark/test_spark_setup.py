"""The Spark test setup explains a missing Java instead of Spark's JAVA_GATEWAY_EXITED."""

from __future__ import annotations

import os
import stat

import pytest

from tests.support.spark import check_java


def test_missing_java_names_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-such-jdk"))
    with pytest.raises(RuntimeError, match="apt-get install openjdk-17-jre-headless"):
        check_java()


def test_broken_java_names_what_to_install(monkeypatch, tmp_path):
    java = tmp_path / "jdk" / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text("#!/bin/sh\necho 'Error: could not create the Java VM' >&2\nexit 1\n")
    java.chmod(java.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk"))
    with pytest.raises(RuntimeError, match="could not create the Java VM") as raised:
        check_java()
    assert "openjdk-17-jre-headless" in str(raised.value)


def test_this_machine_has_java():
    # the suite's Spark tests need it; the line is what `java -version` prints first
    assert "version" in check_java(), os.environ.get("JAVA_HOME")
