# SPDX-License-Identifier: GPL-2.0
# prepage project driver. See README.md.
.PHONY: check bench setup tree build selftests test vm static roundtrip export debug clean

check:          ## everything from a fresh clone; ends with "N passed, N failed"
	@dev/check.sh
bench:          ## the app-switch benchmark in the VM, all modes side by side; prints the table
	@bench/run.sh
setup:          ## install the Debian packages the project needs
	@dev/setup.sh
tree:           ## build/linux: base + series as commits (FORCE=1 to recreate)
	@dev/base.sh
build: tree     ## the test kernel (DEBUG=1: the debug config)
	@dev/build.sh
selftests: build
	@dev/selftests.sh
test: selftests ## kselftests + KUnit in the VM
	@dev/vm-tests.sh
vm: build       ## interactive shell in the VM (CMD="..." runs a command)
	@dev/vm.sh $(if $(CMD),-- $(CMD))
static: build   ## checkpatch, kernel-doc, per-patch build, sparse, coccicheck, quilt
	@dev/static-checks.sh
roundtrip:      ## committed patches/series/mirrors == what the series produces
	@dev/check-roundtrip.sh
export:         ## regenerate patches/, series and mirrors from build/linux
	@dev/export.sh
clean:
	rm -rf build
