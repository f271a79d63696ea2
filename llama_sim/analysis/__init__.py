"""Analyses built on runs: compare, league, sweep, tune, advise, chart, bench."""
