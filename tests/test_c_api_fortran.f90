! ridgeline_dgemm and ridgeline_dgemv from Fortran through the iso_c_binding module (src/c_api/ridgeline.f90),
! on a host build's libridgeline_c.so: seeded random inputs, padded leading dimensions, every element
! against a quad-precision reference within (K + 3) * 2 * epsilon * sum |terms|, the padding untouched;
! then one bad argument, whose status and message must come back and leave C as it was. Stops with
! code 1 on any failure.
program test_c_api_fortran
  use, intrinsic :: iso_c_binding, only: c_int, c_double, c_ptr, c_loc, c_null_ptr
  use ridgeline
  implicit none
  integer, parameter :: qp = selected_real_kind(30), m = 23, n = 17, k = 31, lda = k + 3, ldb = k + 1, &
                        ldc = m + 2
  real(c_double), target :: a(lda, m), b(ldb, n), c(ldc, n), x(k), y(m)
  real(c_double) :: c0(ldc, n), y0(m), alpha, beta, tol
  real(qp) :: ref, mag
  type(c_ptr) :: h
  integer(c_int) :: status
  integer :: i, j, l, failures
  integer, allocatable :: seed(:)

  call random_seed(size=l)
  allocate (seed(l))
  seed = 20261202
  call random_seed(put=seed)
  call fill(a)
  call fill(b)
  call fill(c)
  c(m + 1:, :) = 7777.0d0 ! padding: must stay
  c0 = c
  alpha = 0.75d0
  beta = -1.25d0
  failures = 0

  status = ridgeline_create(h)
  if (status /= RIDGELINE_STATUS_SUCCESS) stop 1
  ! C = alpha A^T B + beta C, with A stored k x m (transa = T)
  status = ridgeline_dgemm(h, RIDGELINE_OP_T, RIDGELINE_OP_N, m, n, k, alpha, c_loc(a), lda, c_loc(b), ldb, &
                           beta, c_loc(c), ldc)
  if (status /= RIDGELINE_STATUS_SUCCESS) then
    print *, 'FAIL: ridgeline_dgemm: ', status, ridgeline_last_error()
    stop 1
  end if
  do j = 1, n
    do i = 1, ldc
      if (i > m) then
        if (c(i, j) /= 7777.0d0) failures = failures + 1
        cycle
      end if
      ref = 0
      mag = 0
      do l = 1, k
        ref = ref + real(a(l, i), qp) * real(b(l, j), qp)
        mag = mag + abs(real(a(l, i), qp) * real(b(l, j), qp))
      end do
      ref = alpha * ref + beta * real(c0(i, j), qp)
      mag = abs(alpha) * mag + abs(beta * c0(i, j))
      tol = 2 * (k + 3) * epsilon(1.0d0) * real(mag, c_double)
      if (abs(real(c(i, j), qp) - ref) > tol) then
        print *, 'FAIL: C(', i, ',', j, ') =', c(i, j), ' reference', real(ref, c_double)
        failures = failures + 1
      end if
    end do
  end do

  ! y = A^T x with beta == 0 and y poisoned: y must not be read
  call fill(x)
  y = transfer(-1_8, 1.0d0) ! a NaN
  status = ridgeline_dgemv(h, RIDGELINE_OP_T, k, m, 1.0d0, c_loc(a), lda, c_loc(x), 1, 0.0d0, c_loc(y), 1)
  if (status /= RIDGELINE_STATUS_SUCCESS) failures = failures + 1
  do i = 1, m
    ref = sum(real(a(1:k, i), qp) * real(x, qp))
    mag = sum(abs(real(a(1:k, i), qp) * real(x, qp)))
    if (.not. abs(real(y(i), qp) - ref) <= 2 * (k + 3) * epsilon(1.0d0) * mag) then
      print *, 'FAIL: y(', i, ') =', y(i), ' reference', real(ref, c_double)
      failures = failures + 1
    end if
  end do

  ! A bad leading dimension: the status, a message naming the shapes, C untouched.
  c0 = c
  status = ridgeline_dgemm(h, RIDGELINE_OP_N, RIDGELINE_OP_N, m, n, k, alpha, c_loc(a), m - 1, c_loc(b), ldb, &
                           beta, c_loc(c), ldc)
  print *, 'bad lda: status ', status, ': ', ridgeline_last_error()
  if (status /= RIDGELINE_STATUS_INVALID_VALUE) failures = failures + 1
  if (index(ridgeline_last_error(), 'ridgeline_dgemm: lda (22) < max(1, m) (23)') == 0) failures = failures + 1
  if (any(c /= c0)) failures = failures + 1
  status = ridgeline_dgemm(c_null_ptr, RIDGELINE_OP_N, RIDGELINE_OP_N, m, n, k, alpha, c_loc(a), lda, c_loc(b), &
                           ldb, beta, c_loc(c), ldc)
  if (status /= RIDGELINE_STATUS_NOT_INITIALIZED) failures = failures + 1

  status = ridgeline_destroy(h)
  if (status /= RIDGELINE_STATUS_SUCCESS) failures = failures + 1
  if (failures /= 0) then
    print *, 'FAILED: ', failures, ' failures'
    stop 1
  end if
  print *, 'PASSED: ridgeline_dgemm and ridgeline_dgemv from Fortran'

contains

  ! Seeded random values, never zero: +-[0.25, 1)
  subroutine fill(v)
    real(c_double), intent(out) :: v(..)
    real(c_double), allocatable :: r(:)
    allocate (r(size(v)))
    call random_number(r)
    r = sign(0.25d0 + 0.75d0 * r, r - 0.5d0)
    select rank (v)
    rank (1)
      v = r
    rank (2)
      v = reshape(r, shape(v))
    end select
  end subroutine
end program test_c_api_fortran
