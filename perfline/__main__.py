"""``python -m perfline``: the command-line interface."""

from perfline.clients.cli import main

if __name__ == "__main__":
    main()
