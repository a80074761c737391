/**
 * What makes a folder a perfline workspace: a `perfline.toml`, or inputs found by convention
 * (ETRecord/ETDump pairs, capture folders, standardized output documents, estimator outputs).
 * The globs are what the extension searches for and watches before it starts the server.
 */

export const MARKER_GLOB =
  '**/{perfline.toml,*.etrecord,*.etdump,capture.json,mlia-output.json,*.mlia.json,*_performance_database.dat}';

export const EXCLUDE_GLOB = '**/{node_modules,.git,.venv,venv,__pycache__}/**';
