"""Run inside the Model Explorer venv: the graphs Model Explorer builds for the given models.

    python explorer_nodes.py MODEL... > nodes.json

Loads each model the way the Model Explorer server does (its ``ExtensionManager`` with the
adapters installed beside it, the adapter chosen by file extension, the ``convert`` command with
the UI's default settings) and prints, per model, the adapter id and each graph's nodes in order
as ``[id, label]`` pairs. Nothing of perfline is imported here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from model_explorer.extension_manager import ExtensionManager  # type: ignore[import-not-found]

ADAPTER_MODULES = [
    "model_explorer_onnx",
    "tosa_adapter_model_explorer",
    "vgf_adapter_model_explorer",
]
UI_DEFAULT_SETTINGS = {"const_element_count_limit": 16}


def main(paths: list[str]) -> dict[str, object]:
    manager = ExtensionManager(ADAPTER_MODULES)
    manager.load_extensions()
    adapters = [e for e in manager.get_extensions_metadata() if e["type"] == "adapter"]
    out: dict[str, object] = {}
    for path in paths:
        suffix = Path(path).suffix.lstrip(".").lower()
        chosen = next(a for a in adapters if suffix in a["fileExts"])
        command = {
            "extensionId": chosen["id"],
            "cmdId": "convert",
            "modelPath": path,
            "settings": UI_DEFAULT_SETTINGS,
            "deleteAfterConversion": False,
        }
        response = json.loads(json.dumps(manager.run_cmd(command)))
        collections = response.get("graphCollections") or [
            {"label": None, "graphs": response.get("graphs", [])}
        ]
        graphs = [
            {
                "collection": collection.get("label"),
                "id": graph["id"],
                "nodes": [[node["id"], node.get("label")] for node in graph["nodes"]],
            }
            for collection in collections
            for graph in collection["graphs"]
        ]
        out[path] = {"adapter": chosen["id"], "graphs": graphs}
    return out


if __name__ == "__main__":
    json.dump(main(sys.argv[1:]), sys.stdout)
