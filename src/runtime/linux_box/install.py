# Installs the Linux box; the last file of the driver (driver.rs), after every part has
# registered its patches (`_LIS_PATCHES`) and installers (`_LIS_INSTALLS`).
_lis_linux_install()
