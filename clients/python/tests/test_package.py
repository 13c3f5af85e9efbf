"""The package itself: generated types in step with the schema, version, Python 3.9 syntax, no dependencies."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
import unittest

from _support import CLIENT_DIR, REPO_ROOT

import shutter_client
from shutter_client import TAKE_OPTION_NAMES, TakeOptions

PACKAGE_DIR = CLIENT_DIR / "shutter_client"
GENERATOR = CLIENT_DIR / "scripts" / "generate_types.mjs"


class GeneratedTypesTest(unittest.TestCase):
    @unittest.skipIf(shutil.which("node") is None, "node is not on PATH")
    def test_options_py_is_what_the_generator_writes(self) -> None:
        # Fails when the options schema changed and options.py was not regenerated (or was edited by hand).
        done = subprocess.run(
            ["node", str(GENERATOR), "--check"], cwd=str(REPO_ROOT), capture_output=True, text=True, timeout=120
        )
        self.assertEqual(done.returncode, 0, done.stderr or done.stdout)

    def test_typed_dict_holds_every_option(self) -> None:
        self.assertEqual(set(TakeOptions.__annotations__), set(TAKE_OPTION_NAMES))
        self.assertEqual(TakeOptions.__required_keys__, frozenset())
        for name in ("url", "html", "format", "full_page", "viewport_width", "hide_selectors"):
            self.assertIn(name, TAKE_OPTION_NAMES)


class PackageTest(unittest.TestCase):
    def test_version_follows_the_server(self) -> None:
        with open(REPO_ROOT / "package.json", encoding="utf-8") as package:
            server_version = json.load(package)["version"]
        self.assertEqual(shutter_client.__version__, server_version)
        pyproject = (CLIENT_DIR / "pyproject.toml").read_text(encoding="utf-8")
        self.assertRegex(pyproject, r'(?m)^version = "' + re.escape(server_version) + '"$')
        changelog = (CLIENT_DIR / "CHANGELOG.md").read_text(encoding="utf-8")
        self.assertIn(f"## {server_version}", changelog)

    def test_typed_marker_is_shipped(self) -> None:
        self.assertTrue((PACKAGE_DIR / "py.typed").exists())
        self.assertIn("py.typed", (CLIENT_DIR / "pyproject.toml").read_text(encoding="utf-8"))

    def test_sources_parse_as_python_3_9(self) -> None:
        for path in sorted(PACKAGE_DIR.glob("*.py")) + sorted((CLIENT_DIR / "tests").glob("*.py")):
            with self.subTest(path.name):
                ast.parse(path.read_text(encoding="utf-8"), filename=str(path), feature_version=(3, 9))

    @unittest.skipUnless(hasattr(sys, "stdlib_module_names"), "needs Python 3.10+ to list the standard library")
    def test_standard_library_only(self) -> None:
        stdlib = set(sys.stdlib_module_names) | {"typing_extensions"}  # typing_extensions: under TYPE_CHECKING only
        for path in sorted(PACKAGE_DIR.glob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    roots = [alias.name.split(".")[0] for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    roots = [node.module.split(".")[0]]
                else:
                    continue
                for root in roots:
                    self.assertIn(root, stdlib | {"__future__"}, f"{path.name} imports {root}")


if __name__ == "__main__":
    unittest.main()
