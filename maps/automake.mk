# Map lifecycle and pinning, mmapped statistics, batched map operations.
