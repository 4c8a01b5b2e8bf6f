! ridgeline.f90: the Fortran interface to libridgeline_c.so (ridgeline.h), through iso_c_binding.
! Compile it with your application (a .mod file belongs to one compiler) and link -lridgeline_c.
!
! Matrices are passed as type(c_ptr): c_loc(a) of a host array with the target attribute on a host
! build, a device pointer (cudaMalloc, or CUDA Fortran's c_devloc) on a CUDA build. Scalars and the
! dimensions are as in ridgeline.h; the operations and statuses are its enumerators. The complex routines
! take complex(c_float_complex) and complex(c_double_complex) arrays and scalars, whose layout is that of
! ridgeline.h's ridgeline_complex_float and ridgeline_complex_double; RIDGELINE_OP_C conjugates them.
module ridgeline
  use, intrinsic :: iso_c_binding, only: c_int, c_float, c_double, c_float_complex, c_double_complex, c_ptr, &
                                         c_char, c_size_t, c_f_pointer
  implicit none
  private :: c_int, c_float, c_double, c_float_complex, c_double_complex, c_ptr, c_char, c_size_t, c_f_pointer

  integer(c_int), parameter :: RIDGELINE_STATUS_SUCCESS = 0, RIDGELINE_STATUS_NOT_INITIALIZED = 1, &
                               RIDGELINE_STATUS_ALLOC_FAILED = 3, RIDGELINE_STATUS_INVALID_VALUE = 7, &
                               RIDGELINE_STATUS_EXECUTION_FAILED = 13, RIDGELINE_STATUS_INTERNAL_ERROR = 14, &
                               RIDGELINE_STATUS_NOT_SUPPORTED = 15
  integer(c_int), parameter :: RIDGELINE_OP_N = 0, RIDGELINE_OP_T = 1, RIDGELINE_OP_C = 2
  integer(c_int), parameter :: RIDGELINE_MEMORY_HOST = 0, RIDGELINE_MEMORY_CUDA = 1

  interface
    integer(c_int) function ridgeline_get_memory_space() bind(c, name='ridgeline_get_memory_space')
      import :: c_int
    end function

    integer(c_int) function ridgeline_create(handle) bind(c, name='ridgeline_create')
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: handle
    end function

    integer(c_int) function ridgeline_destroy(handle) bind(c, name='ridgeline_destroy')
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
    end function

    integer(c_int) function ridgeline_set_stream(handle, stream) bind(c, name='ridgeline_set_stream')
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, stream
    end function

    integer(c_int) function ridgeline_sgemm(handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, &
                                            ldc) bind(c, name='ridgeline_sgemm')
      import :: c_int, c_ptr, c_float
      type(c_ptr), value :: handle, a, b, c
      integer(c_int), value :: transa, transb, m, n, k, lda, ldb, ldc
      real(c_float), intent(in) :: alpha, beta
    end function

    integer(c_int) function ridgeline_dgemm(handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, &
                                            ldc) bind(c, name='ridgeline_dgemm')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: handle, a, b, c
      integer(c_int), value :: transa, transb, m, n, k, lda, ldb, ldc
      real(c_double), intent(in) :: alpha, beta
    end function

    integer(c_int) function ridgeline_cgemm(handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, &
                                            ldc) bind(c, name='ridgeline_cgemm')
      import :: c_int, c_ptr, c_float_complex
      type(c_ptr), value :: handle, a, b, c
      integer(c_int), value :: transa, transb, m, n, k, lda, ldb, ldc
      complex(c_float_complex), intent(in) :: alpha, beta
    end function

    integer(c_int) function ridgeline_zgemm(handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, &
                                            ldc) bind(c, name='ridgeline_zgemm')
      import :: c_int, c_ptr, c_double_complex
      type(c_ptr), value :: handle, a, b, c
      integer(c_int), value :: transa, transb, m, n, k, lda, ldb, ldc
      complex(c_double_complex), intent(in) :: alpha, beta
    end function

    integer(c_int) function ridgeline_sgemv(handle, trans, m, n, alpha, a, lda, x, incx, beta, y, incy) &
      bind(c, name='ridgeline_sgemv')
      import :: c_int, c_ptr, c_float
      type(c_ptr), value :: handle, a, x, y
      integer(c_int), value :: trans, m, n, lda, incx, incy
      real(c_float), intent(in) :: alpha, beta
    end function

    integer(c_int) function ridgeline_dgemv(handle, trans, m, n, alpha, a, lda, x, incx, beta, y, incy) &
      bind(c, name='ridgeline_dgemv')
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: handle, a, x, y
      integer(c_int), value :: trans, m, n, lda, incx, incy
      real(c_double), intent(in) :: alpha, beta
    end function

    integer(c_int) function ridgeline_cgemv(handle, trans, m, n, alpha, a, lda, x, incx, beta, y, incy) &
      bind(c, name='ridgeline_cgemv')
      import :: c_int, c_ptr, c_float_complex
      type(c_ptr), value :: handle, a, x, y
      integer(c_int), value :: trans, m, n, lda, incx, incy
      complex(c_float_complex), intent(in) :: alpha, beta
    end function

    integer(c_int) function ridgeline_zgemv(handle, trans, m, n, alpha, a, lda, x, incx, beta, y, incy) &
      bind(c, name='ridgeline_zgemv')
      import :: c_int, c_ptr, c_double_complex
      type(c_ptr), value :: handle, a, x, y
      integer(c_int), value :: trans, m, n, lda, incx, incy
      complex(c_double_complex), intent(in) :: alpha, beta
    end function

    type(c_ptr) function ridgeline_get_last_error_c() bind(c, name='ridgeline_get_last_error')
      import :: c_ptr
    end function

    integer(c_size_t) function ridgeline_strlen(s) bind(c, name='strlen')
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
    end function
  end interface

contains

  ! This thread's last message (ridgeline_get_last_error) as a Fortran string.
  function ridgeline_last_error() result(text)
    character(len=:), allocatable :: text
    type(c_ptr) :: p
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    p = ridgeline_get_last_error_c()
    n = int(ridgeline_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: text)
    do i = 1, n
      text(i:i) = chars(i)
    end do
  end function
end module ridgeline
