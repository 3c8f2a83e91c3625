# Attaching, replacing and detaching the datapath program on ports.
