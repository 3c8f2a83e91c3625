# Debian packaging (being written).
