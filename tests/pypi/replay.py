#!/usr/bin/env python3
"""Replays games written by this project with the PyPI `baghchal` package.

Usage: replay.py PACKAGE_DIR < games

Each line of standard input is one game in the package's move-list
notation, as this project writes it. For each, one JSON line is written to
standard output: the package's own move list, position and result after it
read the game, or the package's error.

The package (version 1.0.1, with numpy and Pillow, which it imports) is
installed into PACKAGE_DIR with pip when it is not there yet. When pip
cannot reach the package registry, the script prints a line starting with
"SKIP:" and exits with status 3; any other failure exits non-zero too.
"""

import json
import os
import subprocess
import sys

PACKAGE = "baghchal==1.0.1"

# What pip says when it cannot reach the registry.
OFFLINE = (
    "NewConnectionError",
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Network is unreachable",
    "ConnectTimeout",
    "ReadTimeout",
    "ProxyError",
    "Could not fetch URL",
    "No matching distribution found",
)


def ensure_package(target):
    """Makes `import baghchal.env` work from `target`, installing it there."""
    marker = os.path.join(target, "baghchal", "env.py")
    if not os.path.exists(marker):
        result = subprocess.run(
            [
                sys.executable, "-m", "pip", "install", "--quiet",
                "--disable-pip-version-check", "--no-input",
                "--target", target, PACKAGE,
            ],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            output = result.stdout + result.stderr
            if any(sign in output for sign in OFFLINE):
                print(f"SKIP: pip cannot reach the package registry to install {PACKAGE}")
                sys.exit(3)
            sys.stderr.write(output)
            sys.exit(f"pip could not install {PACKAGE}")
    sys.path.insert(0, target)


def replay(env, pgn):
    """What the package makes of one move list."""
    try:
        board = env.Board(pgn)
    except Exception as error:  # the package raises bare Exceptions
        return {"error": str(error)}
    over = board.is_game_over()
    winner = None
    if over:
        winner = {"G": "goats", "B": "tigers"}.get(board.winner(), "draw")
    return {
        "pgn": board.pgn.strip(),
        "fen": board.fen,
        "moves": board.no_of_moves_made,
        "over": over,
        "winner": winner,
    }


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    target = os.path.abspath(sys.argv[1])
    ensure_package(target)
    # The package changes the working directory when imported.
    from baghchal import env

    for line in sys.stdin:
        line = line.strip()
        if line:
            print(json.dumps(replay(env, line)), flush=True)


if __name__ == "__main__":
    main()
