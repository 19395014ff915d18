!
! stem2_sl1.F90 -- a STEM-II array SL(x, y, z, l, ph) of the SL1 shape
! (61 x 61 x 15 x 56 x 3 float32, seed 001) written by every rank from its
! own Fortran-order block into one file in canonical order, with collio's
! Fortran bindings (module collio, docs/fortran.md).
!
! The array is distributed BLOCK over dimension 2 (y) and not elsewhere,
! as STEM-II does: rank r of P holds y in [r*b, min((r+1)*b, 61)) (0-based)
! with b = ceil(61 / P), i.e. MPI_Type_create_darray's BLOCK, and keeps it
! as an ordinary Fortran array sl(:, y0+1:y1, :, :, :). The file holds the
! whole array in Fortran order (x fastest): element SL(x, y, z, l, ph) at
! byte 4 * i, i = (x-1) + 61*((y-1) + 61*((z-1) + 15*((l-1) + 56*(ph-1)))).
! Each element's value is that index i as a real: distinct for the whole
! array (9.4 M elements < 2**24, exact in float32), so a misplaced element
! shows in the file.
!
! Usage: mpirun -n P stem2_sl1 [FILE [STRATEGY [HINTS]]]
!   FILE      default sl1.bin
!   STRATEGY  default multiphase (any registered one: serial, independent,
!             two_phase, multiphase, subgroup)
!   HINTS     the plan's options, "KEY=VALUE,KEY=VALUE" (collio_hints_parse;
!             e.g. "multiphase.exchange=direct,subgroup.group=2"); the
!             environment's COLLIO_HINTS still wins over them
! Exit status 0 on success; on failure rank 0 prints the error and every
! rank exits with 1 (collective calls return the same code on every rank).
!
program stem2_sl1
  use, intrinsic :: iso_c_binding, only: c_float, c_int64_t, c_double
  use mpi_f08
  use collio
  implicit none
  integer, parameter :: NX = 61, NY = 61, NZ = 15, NL = 56, NPH = 3
  real(c_float), allocatable :: sl(:, :, :, :, :)
  character(len=1024) :: path, strategy, list
  character(len=64) :: exchange
  type(collio_layout) :: layout
  type(collio_hints) :: hints
  type(collio_plan) :: plan
  type(collio_file) :: file
  type(collio_stats) :: stats
  real(c_double) :: ex
  logical :: flag
  integer :: rank, nranks, rc, rc2, b, y0, y1, x, y, z, l, ph, i

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  path = "sl1.bin"
  strategy = "multiphase"
  list = ""
  if (command_argument_count() >= 1) call get_command_argument(1, path)
  if (command_argument_count() >= 2) call get_command_argument(2, strategy)
  if (command_argument_count() >= 3) call get_command_argument(3, list)

  ! This rank's block of y (0-based [y0, y1)), as BLOCK's default block b.
  b = (NY + nranks - 1) / nranks
  y0 = min(rank * b, NY)
  y1 = min(y0 + b, NY)
  allocate (sl(NX, y0 + 1:y1, NZ, NL, NPH))
  do ph = 1, NPH
    do l = 1, NL
      do z = 1, NZ
        do y = y0 + 1, y1
          do x = 1, NX
            sl(x, y, z, l, ph) = real((x - 1) + NX * ((y - 1) + NY * ((z - 1) + NZ * &
                                      ((l - 1) + NL * (ph - 1)))), c_float)
          end do
        end do
      end do
    end do
  end do

  ! The layout: the whole array, BLOCK over y on a 1 x P x 1 x 1 x 1 grid,
  ! Fortran order; each rank's buffer is its block, packed in that order --
  ! exactly how sl is stored.
  rc = collio_layout_darray(MPI_COMM_WORLD, &
                            gsizes=[integer(c_int64_t) :: NX, NY, NZ, NL, NPH], &
                            distribs=[COLLIO_DIST_NONE, COLLIO_DIST_BLOCK, COLLIO_DIST_NONE, &
                                      COLLIO_DIST_NONE, COLLIO_DIST_NONE], &
                            psizes=[1, nranks, 1, 1, 1], order=COLLIO_ORDER_FORTRAN, &
                            esize=storage_size(sl) / 8, layout=layout)
  call check(rc, "layout")
  ! The options as hints: checked here (local), so a bad list stops every
  ! rank alike (every rank parses the same command line).
  rc = collio_hints_create(hints)
  if (rc == COLLIO_OK) rc = collio_hints_parse(hints, trim(list))
  call check(rc, "hints")
  rc = collio_plan_create(MPI_COMM_WORLD, layout, trim(strategy), plan, hints)
  call collio_hints_free(hints)
  call check(rc, "plan")

  ! Atomic create: the file appears only when every rank wrote its part.
  rc = collio_file_open(MPI_COMM_WORLD, trim(path), COLLIO_FILE_CREATE, file)
  call check(rc, "open")
  rc = collio_write(plan, file, sl)
  if (rc == COLLIO_OK) then
    rc = collio_file_close(file)
  else
    rc2 = collio_file_abort(file) ! the previous file stays; the write's error counts
  end if
  call check(rc, "write")

  ! What ran: the generic statistics, and multiphase's exchange by key (a
  ! value of hint multiphase.exchange; read 0, "auto", where multiphase did
  ! not run).
  rc = collio_plan_stats(plan, stats)
  rc = collio_plan_stat(plan, "multiphase.exchange", ex)
  exchange = collio_option_value_name("multiphase.exchange", nint(ex))
  if (rank == 0) print '(a, i0, a, a, a, a, a, f8.4, a, a)', "stem2_sl1: ", &
    collio_layout_global_count(layout) * 4, " bytes to ", trim(path), " with ", &
    collio_plan_strategy(plan), " in ", stats%total_s, " s, exchange ", trim(exchange)
  ! The options it ran with, defaults included (collio_plan_hints).
  rc = collio_plan_hints(plan, hints)
  if (rank == 0 .and. rc == COLLIO_OK) then
    do i = 0, collio_hints_count(hints) - 1
      exchange = ""
      rc = collio_hints_get(hints, collio_hints_key(hints, i), exchange, flag)
      print '(a, a, a, a)', "  ", collio_hints_key(hints, i), " = ", trim(exchange)
    end do
  end if
  call collio_hints_free(hints)
  call collio_plan_free(plan)
  call collio_layout_free(layout)
  call MPI_Finalize()

contains

  ! Collective calls return the same code on every rank, and the hints are
  ! the same command line's on every rank: all stop together.
  subroutine check(code, what)
    integer, intent(in) :: code
    character(len=*), intent(in) :: what
    if (code == COLLIO_OK) return
    if (rank == 0) print '(a, a, a, a, a, a)', "stem2_sl1: ", what, ": ", &
      collio_strerror(code), " -- ", collio_last_error()
    call MPI_Finalize()
    stop 1
  end subroutine check
end program stem2_sl1
