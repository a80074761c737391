"""Post-processing a valid document imports no pydantic: the checked fast path
(``document_canonical``) gives the canonical form, and the models (``document``)
are imported only for a result it is not sure of, to say what is wrong with it.

Run in a fresh interpreter of the build under test (from ``/``, the checkout
appended for the document builder), since this test session imports pydantic.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.cases import CASES
from tests.support.locations import REPO

_SCRIPT = """
import json, sys
sys.path.append({root!r})
from perfline.core.errors import InputError
from perfline.core.pipeline import postprocess
from perfline.core.pipeline_memo import PipelineMemo
from tests.support.documents import nx_document

seen = {{"imported": "pydantic" in sys.modules}}
postprocess(nx_document(200))
memo = PipelineMemo()
postprocess(nx_document(200), memo=memo)
postprocess(nx_document(200, seed=2), memo=memo)
for path in {cases!r}:
    postprocess(json.load(open(path)))
seen["valid"] = "pydantic" in sys.modules
document = nx_document(20)
document["results"][0]["entities"][0]["scope"] = "legacy"
try:
    postprocess(document, source="doc.json")
except InputError as error:
    seen["message"] = error.render()
seen["invalid"] = "pydantic" in sys.modules
print(json.dumps(seen))
"""


def test_a_valid_document_is_post_processed_without_pydantic() -> None:
    cases = sorted(str(path) for path in (CASES / "worked").glob("*[0-9a-z].json"))
    cases = [path for path in cases if not path.endswith(".expected.json")]
    assert len(cases) > 5
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT.format(root=str(REPO), cases=cases)],
        cwd="/",
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    seen = json.loads(done.stdout)
    assert seen["imported"] is False
    assert seen["valid"] is False
    assert "Entity uses unsupported legacy field 'scope'." in seen["message"]
    assert "results[0].entities[0]" in seen["message"]
    assert seen["invalid"] is True
