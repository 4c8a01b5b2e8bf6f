# ridgeline_git_sha(<var>): the short sha of the checkout at configure time, with "-dirty" when the tree
# has changes, or "unknown" without git. Records written by a binary carry it: a binary carried to
# another machine has no checkout to ask.
function(ridgeline_git_sha var)
  set(sha "")
  find_package(Git QUIET)
  if(GIT_FOUND)
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short HEAD WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
      OUTPUT_VARIABLE sha OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
    if(rc EQUAL 0)
      execute_process(COMMAND ${GIT_EXECUTABLE} diff --quiet HEAD -- WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
        RESULT_VARIABLE dirty ERROR_QUIET)
      if(NOT dirty EQUAL 0)
        string(APPEND sha "-dirty")
      endif()
    else()
      set(sha "")
    endif()
  endif()
  if(sha STREQUAL "")
    set(sha "unknown")
  endif()
  set(${var} "${sha}" PARENT_SCOPE)
endfunction()
