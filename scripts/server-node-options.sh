# Source this file before starting a server process (npm start, the end-to-end server, the benchmarks):
# V8 heap settings for the process that serves requests and also runs syncs and demo loads.
# - A heap cap under 2 GB makes V8 let the old generation grow by at most about 1.6x between full
#   collections instead of 4x: with ~40 MB live, a Shopify backfill peaked at ~400 MB RSS, mostly
#   garbage not yet collected. 1 GB stays far above what the process keeps alive.
# - A smaller young generation (8 MB semi-spaces instead of 16) takes another ~90 MB off the peak.
# Figures in BENCHMARKS.md ("Backfill memory"); same speed within the noise.
export NODE_OPTIONS="--max-old-space-size=1024 --max-semi-space-size=8${NODE_OPTIONS:+ $NODE_OPTIONS}"
