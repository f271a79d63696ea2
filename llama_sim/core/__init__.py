"""Core: errors, compiling and the kernel cache, random streams, the policy contract, the strategy
registry and the rule-set interface. Imports nothing above it."""
