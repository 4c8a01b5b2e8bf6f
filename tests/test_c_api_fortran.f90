! ridgeline_dgemm, ridgeline_dgemv and the complex ridgeline_zgemm, ridgeline_cgemm, ridgeline_zgemv and
! ridgeline_cgemv from Fortran through the iso_c_binding module (src/c_api/ridgeline.f90), on a host
! build's libridgeline_c.so: seeded random inputs, padded leading dimensions, every element against a
! quad-precision reference within (K + 3) * 2 * epsilon * sum |terms| (complex: (K + 4) * 4 * epsilon *
! sum (|re| + |im|) products), the padding untouched, beta == 0 over a NaN-poisoned output; then bad
! arguments, whose status and message must come back and leave C as it was. Stops with code 1 on any
! failure.
program test_c_api_fortran
  use, intrinsic :: iso_c_binding, only: c_int, c_double, c_float, c_float_complex, c_double_complex, c_ptr, &
                                         c_loc, c_null_ptr
  use ridgeline
  implicit none
  integer, parameter :: qp = selected_real_kind(30), m = 23, n = 17, k = 31, lda = k + 3, ldb = k + 1, &
                        ldc = m + 2
  real(c_double), target :: a(lda, m), b(ldb, n), c(ldc, n), x(k), y(m)
  real(c_double) :: c0(ldc, n), y0(m), alpha, beta, tol
  real(qp) :: ref, mag
  ! complex: C = alpha A^H B^T + beta C (zgemm) and C = alpha A B^H (cgemm, beta == 0), y = alpha A^H x
  ! (zgemv, beta == 0) and y = alpha A^T x + beta y (cgemv)
  integer, parameter :: zm = 7, zn = 33, zk = 33, lza = zk + 3, lzb = zn + 2, lzc = zm + 2, lca = zm + 1
  complex(c_double_complex), target :: za(lza, zm), zb(lzb, zk), zc(lzc, zn), zx(zk), zy(zm)
  complex(c_double_complex) :: zc0(lzc, zn), zalpha, zbeta
  complex(c_float_complex), target :: ca(lca, zk), cb(lzb, zk), cc(lzc, zn), cx(2 * zm), cy(zk)
  complex(c_float_complex) :: cy0(zk), calpha, cbeta
  complex(qp) :: zref
  complex(c_double_complex), parameter :: zsentinel = (7777.0d0, -7777.0d0)
  complex(c_float_complex), parameter :: csentinel = (7777.0, -7777.0)
  real(c_double) :: nan
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

  ! ---- complex ----
  nan = transfer(-1_8, 1.0d0)
  call fill_z(za)
  call fill_z(zb)
  call fill_z(zc)
  zc(zm + 1:, :) = zsentinel
  zc0 = zc
  zalpha = (0.75d0, -0.5d0)
  zbeta = (-1.25d0, 0.375d0)
  status = ridgeline_zgemm(h, RIDGELINE_OP_C, RIDGELINE_OP_T, zm, zn, zk, zalpha, c_loc(za), lza, c_loc(zb), lzb, &
                           zbeta, c_loc(zc), lzc)
  if (status /= RIDGELINE_STATUS_SUCCESS) then
    print *, 'FAIL: ridgeline_zgemm: ', status, ridgeline_last_error()
    failures = failures + 1
  end if
  do j = 1, zn
    if (any(zc(zm + 1:, j) /= zsentinel)) failures = failures + 1
    do i = 1, zm
      zref = sum(conjg(cmplx(za(1:zk, i), kind=qp)) * cmplx(zb(j, 1:zk), kind=qp))
      mag = sum(l1(cmplx(za(1:zk, i), kind=qp)) * l1(cmplx(zb(j, 1:zk), kind=qp)))
      zref = zalpha * zref + zbeta * cmplx(zc0(i, j), kind=qp)
      mag = l1(cmplx(zalpha, kind=qp)) * mag + l1(cmplx(zbeta, kind=qp)) * l1(cmplx(zc0(i, j), kind=qp))
      if (.not. near(cmplx(zc(i, j), kind=qp), zref, 4 * (zk + 4) * epsilon(1.0d0) * mag)) then
        print *, 'FAIL: zgemm C(', i, ',', j, ') =', zc(i, j), ' reference', cmplx(zref, kind=c_double_complex)
        failures = failures + 1
      end if
    end do
  end do

  ! cgemm N, C with beta == 0 over NaN: C must not be read
  call fill_c(ca)
  call fill_c(cb)
  cc = csentinel
  cc(1:zm, :) = cmplx(nan, nan, kind=c_float_complex)
  calpha = (-0.5, 1.25)
  status = ridgeline_cgemm(h, RIDGELINE_OP_N, RIDGELINE_OP_C, zm, zn, zk, calpha, c_loc(ca), lca, c_loc(cb), lzb, &
                           (0.0, 0.0), c_loc(cc), lzc)
  if (status /= RIDGELINE_STATUS_SUCCESS) failures = failures + 1
  do j = 1, zn
    if (any(cc(zm + 1:, j) /= csentinel)) failures = failures + 1
    do i = 1, zm
      zref = calpha * sum(cmplx(ca(i, 1:zk), kind=qp) * conjg(cmplx(cb(j, 1:zk), kind=qp)))
      mag = l1(cmplx(calpha, kind=qp)) * sum(l1(cmplx(ca(i, 1:zk), kind=qp)) * l1(cmplx(cb(j, 1:zk), kind=qp)))
      if (.not. near(cmplx(cc(i, j), kind=qp), zref, 4 * (zk + 4) * epsilon(1.0) * mag)) then
        print *, 'FAIL: cgemm C(', i, ',', j, ') =', cc(i, j), ' reference', cmplx(zref, kind=c_float_complex)
        failures = failures + 1
      end if
    end do
  end do

  ! zgemv C with beta == 0 over NaN; cgemv T with beta and a stride-2 x
  call fill_z(zx)
  zy = cmplx(nan, nan, kind=c_double_complex)
  status = ridgeline_zgemv(h, RIDGELINE_OP_C, zk, zm, zalpha, c_loc(za), lza, c_loc(zx), 1, (0.0d0, 0.0d0), &
                           c_loc(zy), 1)
  if (status /= RIDGELINE_STATUS_SUCCESS) failures = failures + 1
  do i = 1, zm
    zref = zalpha * sum(conjg(cmplx(za(1:zk, i), kind=qp)) * cmplx(zx, kind=qp))
    mag = l1(cmplx(zalpha, kind=qp)) * sum(l1(cmplx(za(1:zk, i), kind=qp)) * l1(cmplx(zx, kind=qp)))
    if (.not. near(cmplx(zy(i), kind=qp), zref, 4 * (zk + 4) * epsilon(1.0d0) * mag)) then
      print *, 'FAIL: zgemv y(', i, ') =', zy(i), ' reference', cmplx(zref, kind=c_double_complex)
      failures = failures + 1
    end if
  end do
  call fill_c(cx)
  call fill_c(cy)
  cy0 = cy
  cbeta = (0.25, -2.0)
  ! op(A) = A^T with A zm x zk (ca, leading dimension lca): y has zk entries, x the zm entries cx(1::2)
  status = ridgeline_cgemv(h, RIDGELINE_OP_T, zm, zk, calpha, c_loc(ca), lca, c_loc(cx), 2, cbeta, c_loc(cy), 1)
  if (status /= RIDGELINE_STATUS_SUCCESS) failures = failures + 1
  do i = 1, zk
    zref = calpha * sum(cmplx(ca(1:zm, i), kind=qp) * cmplx(cx(1::2), kind=qp)) + cbeta * cmplx(cy0(i), kind=qp)
    mag = l1(cmplx(calpha, kind=qp)) * sum(l1(cmplx(ca(1:zm, i), kind=qp)) * l1(cmplx(cx(1::2), kind=qp))) + &
          l1(cmplx(cbeta, kind=qp)) * l1(cmplx(cy0(i), kind=qp))
    if (.not. near(cmplx(cy(i), kind=qp), zref, 4 * (zm + 4) * epsilon(1.0) * mag)) then
      print *, 'FAIL: cgemv y(', i, ') =', cy(i), ' reference', cmplx(zref, kind=c_float_complex)
      failures = failures + 1
    end if
  end do

  ! A bad leading dimension with transa = C: the status, a message naming the shapes, C untouched.
  zc0 = zc
  status = ridgeline_zgemm(h, RIDGELINE_OP_C, RIDGELINE_OP_N, zm, zn, zk, zalpha, c_loc(za), zk - 1, c_loc(zb), &
                           lzb, zbeta, c_loc(zc), lzc)
  print *, 'bad lda: status ', status, ': ', ridgeline_last_error()
  if (status /= RIDGELINE_STATUS_INVALID_VALUE) failures = failures + 1
  if (index(ridgeline_last_error(), 'ridgeline_zgemm: lda (32) < max(1, k) (33) with transa = C') == 0) &
    failures = failures + 1
  if (any(zc /= zc0)) failures = failures + 1
  status = ridgeline_cgemv(h, 5, zm, zk, calpha, c_loc(ca), lca, c_loc(cx), 1, cbeta, c_loc(cy), 1)
  if (status /= RIDGELINE_STATUS_INVALID_VALUE) failures = failures + 1
  if (index(ridgeline_last_error(), 'ridgeline_cgemv: trans (5)') == 0) failures = failures + 1

  status = ridgeline_destroy(h)
  if (status /= RIDGELINE_STATUS_SUCCESS) failures = failures + 1
  if (failures /= 0) then
    print *, 'FAILED: ', failures, ' failures'
    stop 1
  end if
  print *, 'PASSED: ridgeline_dgemm, ridgeline_dgemv, ridgeline_zgemm, ridgeline_cgemm, ridgeline_zgemv and ', &
    'ridgeline_cgemv from Fortran'

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

  ! |re| + |im|: bounds |z|, and each part's rounding error of a complex product
  elemental real(qp) function l1(z)
    complex(qp), intent(in) :: z
    l1 = abs(real(z, qp)) + abs(aimag(z))
  end function

  ! Both parts within tol (false for a NaN)
  logical function near(got, want, tol)
    complex(qp), intent(in) :: got, want
    real(qp), intent(in) :: tol
    near = abs(real(got, qp) - real(want, qp)) <= tol .and. abs(aimag(got) - aimag(want)) <= tol
  end function

  subroutine fill_z(v)
    complex(c_double_complex), intent(out) :: v(..)
    real(c_double), allocatable :: re(:), im(:)
    allocate (re(size(v)), im(size(v)))
    call fill(re)
    call fill(im)
    select rank (v)
    rank (1)
      v = cmplx(re, im, kind=c_double_complex)
    rank (2)
      v = reshape(cmplx(re, im, kind=c_double_complex), shape(v))
    end select
  end subroutine

  subroutine fill_c(v)
    complex(c_float_complex), intent(out) :: v(..)
    real(c_double), allocatable :: re(:), im(:)
    allocate (re(size(v)), im(size(v)))
    call fill(re)
    call fill(im)
    select rank (v)
    rank (1)
      v = cmplx(re, im, kind=c_float_complex)
    rank (2)
      v = reshape(cmplx(re, im, kind=c_float_complex), shape(v))
    end select
  end subroutine
end program test_c_api_fortran
