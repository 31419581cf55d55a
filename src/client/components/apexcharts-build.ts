// The ApexCharts of the app: the bare core plus only the chart types and features our charts use
// (chart.tsx and its callers), instead of the batteries-included build (~100 KB gzipped lighter).
// A chart type or feature added to a caller must be added here too: ApexCharts warns in the console
// and draws nothing for a type it does not know (e2e/first-load.spec.ts draws every type we use).
import ApexCharts from 'apexcharts/core';
import 'apexcharts/line'; // line, and the line series of combined line/column charts
import 'apexcharts/area'; // area charts and sparklines
import 'apexcharts/bar'; // bar, and the column series of combined charts
import 'apexcharts/donut'; // donut
import 'apexcharts/features/legend'; // legends (the toolbar, zoom, exports, annotations and keyboard stay out)

export default ApexCharts;
