# Writes OUT, the build's version and commit (core/version.h), from
# version.cc.in: run at every build (the commit changes without a configure),
# and OUT is rewritten only when its text changes, so nothing relinks for nothing.
#   cmake -DSOURCE_DIR=... -DVERSION=... -DOUT=... -P version.cmake
set(commit "unknown")
find_program(GIT git)
if(GIT AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT}" -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE head RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET)
  if(rc EQUAL 0 AND head MATCHES "^[0-9a-f]+$")
    set(commit "${head}")
    execute_process(COMMAND "${GIT}" -C "${SOURCE_DIR}" diff --quiet HEAD --
                    RESULT_VARIABLE dirty ERROR_QUIET)
    if(NOT dirty EQUAL 0)
      set(commit "${commit}-modified")
    endif()
  endif()
endif()
set(DW_VERSION "${VERSION}")
set(DW_COMMIT "${commit}")
configure_file("${CMAKE_CURRENT_LIST_DIR}/version.cc.in" "${OUT}" @ONLY)
