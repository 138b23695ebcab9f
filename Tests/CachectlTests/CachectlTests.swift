// cachectl tests run the built binary as a process; one suite per subcommand.
