/* The report page's own files, embedded from src/report/html/ by cmake/embed_assets.cmake (NUL-terminated). */
#ifndef KVB_ASSETS_H
#define KVB_ASSETS_H

extern const char kvb_asset_plots_js[];   /* src/report/html/plots.js: draws the plot specs with d3 */
extern const char kvb_asset_report_css[]; /* src/report/html/report.css */
extern const char kvb_asset_forest_js[];  /* src/report/html/forest.js: the summary (forest), scatter and along kinds */

/*
 * d3 is not embedded: the page inlines Debian's build (package node-d3) read
 * at render time from $KVB_D3_JS, else this path.
 */
#define KVB_D3_JS_DEFAULT "/usr/share/nodejs/d3/dist/d3.min.js"

#endif
