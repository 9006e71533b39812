"""Day-2 compliance: the testinfra suites of tests/infra run against an inventory."""
