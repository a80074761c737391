"""Model Explorer overlays: a document's operator figures as node data on the model's graph.

``graph_ids`` states where each Model Explorer adapter (PT2, ONNX, TOSA, VGF) shows a canonical
``source_operator``; ``node_data`` builds the node-data file (``perfline export
--model-explorer``). Pure: the caller reads the model and the document.
"""
