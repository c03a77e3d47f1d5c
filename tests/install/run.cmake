# Installs the built ember into a fresh prefix, then configures, builds and runs a consumer
# project that finds it with find_package(ember) and includes <torch/torch.h>.
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC}/tests/install/consumer -B ${WORK}/build -G Ninja
                        -DCMAKE_PREFIX_PATH=${WORK}/prefix RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the consumer failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the consumer failed: ${rc}")
endif()
execute_process(COMMAND ${WORK}/build/consumer RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message("${out}")
if(rc OR NOT out MATCHES "consumer ok")
  message(FATAL_ERROR "the consumer failed: ${rc}")
endif()

# The installed `ember train` finds its data set beside it (<prefix>/share/ember).
execute_process(COMMAND ${WORK}/prefix/bin/ember train --epochs 1 --no-progress --checkpoint ${WORK}/digits.safetensors
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(rc OR NOT out MATCHES "test accuracy: 0\\.[0-9][0-9][0-9]\n$" OR NOT out MATCHES "data: ${WORK}/prefix/share/ember/")
  message(FATAL_ERROR "the installed ember train failed (${rc}): ${err}")
endif()
