# Command-line tools: the quick start and its helpers.
EXTRA_DIST += utilities/quickstart.sh
