// What the report page's script (core/report_html/page_*.js) finds in its window:
// the VS Code webview API when it runs in the extension's report panel, and the state it
// publishes for tests and hosts.
declare function acquireVsCodeApi(): { postMessage(message: unknown): void };

interface Window {
  perflineReport: unknown;
}
