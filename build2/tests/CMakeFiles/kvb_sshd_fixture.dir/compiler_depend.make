# Empty compiler generated dependencies file for kvb_sshd_fixture.
# This may be replaced when dependencies are built.
