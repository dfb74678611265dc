"""Product code size: lines, statements and tokens over the eight packages, for a tree or a commit.

`python bench/code_size.py` measures the working tree; `python bench/code_size.py REV` measures a
commit (read with `git show`). Statements and tokens do not move when only formatting does.
"""

from __future__ import annotations

import ast
import io
import subprocess
import sys
import tokenize

PACKAGES = ("schemas", "adapters", "engine", "envs", "bridge", "training", "workflows", "loopline")
SKIPPED = {
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.COMMENT,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENDMARKER,
}


def sources(rev: str | None) -> list[str]:
    """Every product module's text, at `rev` or in the working tree."""
    tree = ["ls-tree", "-r", "--name-only", rev] if rev else ["ls-files"]
    names = subprocess.run(["git", *tree, "--", *PACKAGES], capture_output=True, text=True, check=True)
    paths = [p for p in names.stdout.split() if p.endswith(".py")]
    if rev is None:
        return [open(p, encoding="utf-8").read() for p in paths]
    show = ["git", "show"]
    return [
        subprocess.run([*show, f"{rev}:{p}"], capture_output=True, text=True, check=True).stdout
        for p in paths
    ]


def main() -> None:
    texts = sources(sys.argv[1] if len(sys.argv) > 1 else None)
    lines = sum(t.count("\n") for t in texts)
    statements = sum(isinstance(n, ast.stmt) for t in texts for n in ast.walk(ast.parse(t)))
    tokens = sum(
        1
        for t in texts
        for tok in tokenize.generate_tokens(io.StringIO(t).readline)
        if tok.type not in SKIPPED
    )
    print(f"lines {lines} statements {statements} tokens {tokens}")


if __name__ == "__main__":
    main()
