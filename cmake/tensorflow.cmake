# The TensorFlow front end's build settings, read from the tensorflow wheel of
# a Python that imports it. Sets FD_TF_FOUND, FD_TF_VERSION, FD_TF_INCLUDES,
# FD_TF_DEFINES (other compile flags) and FD_TF_LINK.
#
# Which Python: FD_TF_PYTHON if set, else the one scikit-build configures with
# (Python_EXECUTABLE / Python3_EXECUTABLE), else python3 on the PATH. pip's
# isolated build hides the environment's own packages through PYTHONPATH: the
# query runs without it, so it sees the tensorflow installed beside the package.
set(FD_TF_PYTHON "" CACHE FILEPATH "Python whose tensorflow the TF front end is built against")
set(FD_TF_FOUND OFF)

function(fd_tf_python out)
  if(FD_TF_PYTHON)
    set(py ${FD_TF_PYTHON})
  elseif(Python_EXECUTABLE)
    set(py ${Python_EXECUTABLE})
  elseif(Python3_EXECUTABLE)
    set(py ${Python3_EXECUTABLE})
  else()
    find_program(py NAMES python3 python)
  endif()
  set(${out} ${py} PARENT_SCOPE)
endfunction()

fd_tf_python(FD_TF_QUERY_PYTHON)
set(FD_TF_QUERY [=[
import tensorflow as tf
print(tf.__version__)
print("|".join(tf.sysconfig.get_compile_flags()))
print("|".join(tf.sysconfig.get_link_flags()))
]=])
if(CMAKE_CROSSCOMPILING)
  set(FD_TF_QUERY_PYTHON "")  # the wheel's libraries are the host's
endif()
if(FD_TF_QUERY_PYTHON)
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env --unset=PYTHONPATH --unset=PYTHONNOUSERSITE TF_CPP_MIN_LOG_LEVEL=3
            ${FD_TF_QUERY_PYTHON} -c "${FD_TF_QUERY}"
    OUTPUT_VARIABLE FD_TF_OUT RESULT_VARIABLE FD_TF_RC ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()

if(FD_TF_QUERY_PYTHON AND FD_TF_RC EQUAL 0)
  string(REPLACE "\n" ";" FD_TF_LINES "${FD_TF_OUT}")
  list(LENGTH FD_TF_LINES n)
  if(n GREATER_EQUAL 3)
    list(GET FD_TF_LINES -3 FD_TF_VERSION)
    list(GET FD_TF_LINES -2 FD_TF_CFLAGS)
    list(GET FD_TF_LINES -1 FD_TF_LINK)
    string(REPLACE "|" ";" FD_TF_CFLAGS "${FD_TF_CFLAGS}")
    string(REPLACE "|" ";" FD_TF_LINK "${FD_TF_LINK}")
    set(FD_TF_INCLUDES "")
    set(FD_TF_DEFINES "")
    foreach(flag ${FD_TF_CFLAGS})
      if(flag MATCHES "^-I(.*)")
        list(APPEND FD_TF_INCLUDES ${CMAKE_MATCH_1})
      elseif(NOT flag MATCHES "^--?std=")
        list(APPEND FD_TF_DEFINES ${flag})
      endif()
    endforeach()
    set(FD_TF_FOUND ON)
  endif()
endif()

if(FD_TF_FOUND)
  message(STATUS "fusedelegate: TensorFlow ${FD_TF_VERSION} found through ${FD_TF_QUERY_PYTHON}: building libfusedelegate_tf.so")
else()
  message(STATUS "fusedelegate: no Python here imports tensorflow (${FD_TF_QUERY_PYTHON}), or cross-compiling: "
                 "not building libfusedelegate_tf.so")
endif()
