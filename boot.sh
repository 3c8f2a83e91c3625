#! /bin/sh
# Generates configure and the Makefile templates from a fresh clone.
set -e
autoreconf --install --force
