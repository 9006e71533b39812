"""Running the playbooks: stages, targets, run records and the ansible-runner driver."""
